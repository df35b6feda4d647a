import { createHash } from 'node:crypto';
import type { SessionNotices, SignedOutNotice } from '@pass/events';

/**
 * The Socket.IO rooms a member's sockets join at their handshake, so an ended session reaches
 * their open pages on every query-api instance (through the Redis adapter and emitter when
 * distributed). A session's room is named by a hash of its id: the id stays off the wire.
 */
export const memberRoom = (userId: string) => `member:${userId}`;
export const sessionRoom = (sessionId: string) => `session:${createHash('sha256').update(sessionId).digest('base64url').slice(0, 22)}`;

/** What broadcasts to rooms: a Socket.IO server (standalone) or a Redis emitter (distributed). */
export interface RoomBroadcaster {
  to(room: string): RoomOperator;
}
interface RoomOperator {
  except(room: string): RoomOperator;
  emit(event: 'signedOut', notice: SignedOutNotice): unknown;
}

/**
 * command-api's announcements of ended sessions, sent to the member's room (but the session that
 * goes on). `target` may be late (standalone attaches its sockets after command-api is built);
 * until then nothing is sent. A failed send is left: the page finds out on its next request.
 */
export function socketSessionNotices(target: () => RoomBroadcaster | undefined, onError: (error: unknown) => void = () => undefined): SessionNotices {
  return {
    signedOut(userId, reason, exceptSessionId) {
      const broadcaster = target();
      if (!broadcaster) return;
      try {
        let to = broadcaster.to(memberRoom(userId));
        if (exceptSessionId) to = to.except(sessionRoom(exceptSessionId));
        const sent = to.emit('signedOut', { reason });
        if (sent instanceof Promise) sent.catch(onError);
      } catch (error) {
        onError(error);
      }
    },
  };
}
