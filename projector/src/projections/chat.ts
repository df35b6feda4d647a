import { toChatMessageView, type ChatMessageView, type DomainEvent } from '@pass/events';
import type { MainRecord, ReadModelWrite } from '../read-models/types';

/**
 * Global chat: each ChatMessageSent is appended and counted; ChatCleared (admin) empties the
 * panel and restarts the count. A deleted member post does not touch the chat: the spec gives
 * the admin a separate "delete chat messages" action for that.
 */
export function projectChat(
  main: MainRecord,
  event: DomainEvent,
  writes: ReadModelWrite[],
): { message?: ChatMessageView; cleared?: true } | undefined {
  // `main` is the batch's working copy, updated in place; writes go straight into the batch's list.
  switch (event.type) {
    case 'ChatMessageSent': {
      const message = toChatMessageView(event.data);
      main.globalMessages += 1;
      writes.push({ op: 'chatPush', message });
      return { message };
    }
    case 'ChatCleared':
      main.globalMessages = 0;
      writes.push({ op: 'chatClear' });
      return { cleared: true };
    default:
      return undefined;
  }
}
