import type { Server } from 'socket.io';

/** What this module touches of an engine.io socket (`flush` is private in engine.io's types). */
interface EngineConnection {
  flush(): void;
  transport?: { socket?: { _socket?: unknown } };
}

interface Corkable {
  cork(): void;
  uncork(): void;
}

const corkable = (value: unknown): value is Corkable =>
  typeof value === 'object' && value !== null && typeof (value as Corkable).cork === 'function' && typeof (value as Corkable).uncork === 'function';

/**
 * Packets written to a connection in one tick leave in one system call.
 *
 * Socket.IO already encodes a broadcast once (and pre-builds its WebSocket frame), so fanning
 * out is one write per socket, and profiles of a 5,000-socket fan-out show those writes' system
 * calls as nearly all of the work (bench/fanout.ts). A chat message causes two broadcasts in
 * the same tick (`updatedMainData`, then `chatMessage`); engine.io sends the first at once and
 * holds the second until the first write's callback, so each socket cost two calls and every
 * socket's `chatMessage` waited behind the first broadcast to all sockets.
 *
 * Here a connection's flush waits for the end of the tick (process.nextTick, so no I/O and no
 * timer comes in between), then sends everything queued with the TCP socket corked: one
 * writev per socket per tick, in the order the sockets were first written to. Order and
 * content of packets are engine.io's own; only the moment of the flush moves.
 */
export function coalesceWrites(io: Server): void {
  let due = new Set<EngineConnection>();
  const flushes = new WeakMap<EngineConnection, () => void>();

  const flushDue = () => {
    const batch = due;
    due = new Set();
    for (const conn of batch) {
      const raw = conn.transport?.socket?._socket;
      const flush = flushes.get(conn)!;
      if (!corkable(raw)) {
        flush();
        continue;
      }
      raw.cork();
      try {
        flush();
      } finally {
        raw.uncork();
      }
    }
  };

  // Per Socket.IO connection rather than on io.engine, which a Server not yet attached lacks;
  // the handshake's few packets before it flush as before.
  io.on('connection', (socket) => {
    const conn = socket.conn as unknown as EngineConnection;
    if (flushes.has(conn)) return;
    flushes.set(conn, conn.flush.bind(conn));
    conn.flush = () => {
      if (due.size === 0) process.nextTick(flushDue);
      due.add(conn);
    };
  });
}
