import type { ChatMessageView, DomainEvent } from '@pass/events';
import type { MainRecord, ReadModelWrite } from '../read-models/types';

/**
 * Global chat: each ChatMessageSent is appended and counted; ChatCleared (admin) empties the
 * panel and restarts the count. A deleted member post does not touch the chat: the spec gives
 * the admin a separate "delete chat messages" action for that.
 */
export function projectChat(
  main: MainRecord,
  event: DomainEvent,
): { main: MainRecord; writes: ReadModelWrite[]; message?: ChatMessageView; cleared?: true } {
  switch (event.type) {
    case 'ChatMessageSent': {
      const d = event.data;
      const message: ChatMessageView = {
        id: d.messageId,
        userId: d.userId,
        nickname: d.nickname,
        message: d.message,
        priority: d.priority,
        sentAt: d.sentAt,
      };
      return { main: { ...main, globalMessages: main.globalMessages + 1 }, writes: [{ op: 'chatPush', message }], message };
    }
    case 'ChatCleared':
      return { main: { ...main, globalMessages: 0 }, writes: [{ op: 'chatClear' }], cleared: true };
    default:
      return { main, writes: [] };
  }
}
