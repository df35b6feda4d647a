/**
 * What one socket and one client may ask of the Socket.IO server (docs/architecture.md,
 * "Limits"). A visitor's page asks three reads when it connects and one or two when it moves
 * between pages, and a member sends a few commands a minute: none of it comes near these.
 */

/** `max` events per key in a fixed window of `windowMs` that starts with the key's first event. */
export interface Budget {
  max: number;
  windowMs: number;
}

export interface SocketLimits {
  /** Sockets one client address may hold open on one process; a handshake past it is refused. */
  socketsPerClient: number;
  /** Reads (getUpdatedMainData, getGlobalMember, getChatMessages) per socket and per client address. */
  readsPerSocket: Budget;
  readsPerClient: Budget;
  /** Commands (sendChatMessage, increaseChatCount, decreaseChatCount) per socket and per client address. */
  commandsPerSocket: Budget;
  commandsPerClient: Budget;
  /**
   * A socket that sends this many times its own budget within one window is not a page that
   * got ahead of itself: it is cut off.
   */
  abuseFactor: number;
  /**
   * What may wait to be written to one connection (engine.io's queued packets plus the
   * WebSocket's buffered bytes, in characters of the encoded packets), past which the
   * connection is closed rather than left to grow.
   */
  maxBufferedBytes: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  // A person's tabs and devices behind one address; a household or a small office fits.
  socketsPerClient: 10,
  readsPerSocket: { max: 60, windowMs: 10_000 },
  // Every socket the address may hold, each at a brisk page's pace.
  readsPerClient: { max: 300, windowMs: 10_000 },
  // command-api throttles chat and the free point per member and per address on top of this.
  commandsPerSocket: { max: 100, windowMs: 10_000 },
  commandsPerClient: { max: 200, windowMs: 10_000 },
  abuseFactor: 2,
  // The chat history (the largest answer) is tens of kilobytes: dozens of them fit.
  maxBufferedBytes: 1024 * 1024,
};
