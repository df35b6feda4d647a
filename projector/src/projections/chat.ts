import { assertNever, toChatMessageView } from '@pass/events';
import { projection } from './projection';

/**
 * Global chat: each ChatMessageSent is appended and counted; ChatCleared (admin) empties the
 * panel and restarts the count. A deleted member post does not touch the chat: the spec gives
 * the admin a separate "delete chat messages" action for that.
 */
export const chat = projection({
  handles: ['ChatMessageSent', 'ChatCleared', 'MemberErased'],
  evolve(copy, event) {
    switch (event.type) {
      case 'ChatMessageSent': {
        copy.main.globalMessages += 1;
        // Its texts were left sealed: the batch takes it out of the history (chatLinesLeavingHistory).
        if (copy.sealed.has(event)) return;
        const message = toChatMessageView(event.data);
        copy.chat.push({ op: 'chatPush', message });
        copy.live.push({ kind: 'chatMessage', message });
        return;
      }
      case 'ChatCleared':
        copy.main.globalMessages = 0;
        copy.chat.push({ op: 'chatClear' });
        copy.live.push({ kind: 'chatCleared' });
        return;
      case 'MemberErased':
        // Their lines leave the history; the message count stays true to history.
        copy.chat.push({ op: 'chatDropUser', userId: event.data.userId });
        return;
      default:
        assertNever(event);
    }
  },
  writes(copy, out) {
    for (const write of copy.chat) out.push(write);
  },
});
