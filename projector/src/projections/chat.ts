import { assertNever, toChatMessageView } from '@pass/events';
import { CHAT_HISTORY_LIMIT } from '../read-models/types';
import { projection } from './projection';

/**
 * The chat lines of a batch that the batch itself takes out of the history: followed in it by
 * as many lines as the history keeps, or by a clear, with no member's lines taken out in between
 * (an erasure could leave room for an older line). Stored with the batch, such a line is gone by
 * its end, and its live notice too (a catch-up pushes the history instead once a batch holds more
 * lines than a browser's panel). A catch-up leaves their texts sealed and counts them only
 * (WorkingCopy.sealed). Returns their indexes in `events`.
 */
export function chatLinesLeavingHistory(events: readonly { type: string }[]): number[] {
  const leaving: number[] = [];
  let later = 0;
  let cleared = false;
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type;
    if (type === 'ChatMessageSent') {
      if (cleared || later >= CHAT_HISTORY_LIMIT) leaving.push(i);
      later++;
    } else if (type === 'ChatCleared') {
      cleared = true;
    } else if (type === 'MemberErased') {
      later = 0;
      cleared = false;
    }
  }
  return leaving.reverse();
}

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
    for (const w of copy.chat) out.push(w);
  },
});
