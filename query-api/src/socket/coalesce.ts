import type { Server } from 'socket.io';

/**
 * What this module touches of an engine.io socket (`flush` is private in engine.io's types). It
 * and the adapter's `apply` are checked, with their versions named, by infra/src/http/fast-lane-libraries.test.ts.
 */
interface EngineConnection {
  flush(): void;
  transport?: { socket?: { _socket?: unknown } };
}

interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The adapter's `apply` (private in its types): every broadcast, local or from Redis, visits its sockets through it. */
interface Applying {
  apply(opts: unknown, callback: (socket: unknown) => void): void;
}

const corkable = (value: unknown): value is Corkable =>
  typeof value === 'object' && value !== null && typeof (value as Corkable).cork === 'function' && typeof (value as Corkable).uncork === 'function';

/** Sends what the connection has queued, corked so that several packets leave in one writev. */
function flushCorked(conn: EngineConnection, flush: () => void): void {
  const raw = conn.transport?.socket?._socket;
  if (!corkable(raw)) return flush();
  raw.cork();
  try {
    flush();
  } finally {
    raw.uncork();
  }
}

/**
 * The broadcasts of one tick leave each socket in one system call (docs/architecture.md, "Read
 * side", one write per socket per chat message): a chat message broadcasts twice in one tick, and
 * the writes' system calls are nearly all of a fan-out's work. A flush requested while the adapter
 * visits sockets for a broadcast waits for the end of the tick (process.nextTick: no I/O or timer
 * between), then goes out corked, sockets in the order first written to. Any other write (an ack,
 * a reply, a ping) flushes at once, taking along its socket's waiting broadcast; packets' order
 * and content are engine.io's own.
 */
export function coalesceWrites(io: Server): void {
  const flushes = new WeakMap<EngineConnection, () => void>();
  let due = new Set<EngineConnection>();
  let broadcasting = 0;

  const flushDue = () => {
    const batch = due;
    due = new Set();
    for (const conn of batch) flushCorked(conn, flushes.get(conn)!);
  };

  const adapter = io.of('/').adapter as unknown as Applying;
  const apply = adapter.apply.bind(adapter);
  adapter.apply = (opts, callback) => {
    broadcasting++;
    try {
      apply(opts, callback);
    } finally {
      broadcasting--;
    }
  };

  // Per Socket.IO connection rather than on io.engine, which a Server not yet attached lacks;
  // the handshake's packets before it flush as engine.io sends them.
  io.on('connection', (socket) => {
    const conn = socket.conn as unknown as EngineConnection;
    if (flushes.has(conn)) return;
    const flush = conn.flush.bind(conn);
    flushes.set(conn, flush);
    conn.flush = () => {
      if (broadcasting === 0) return flushCorked(conn, flush);
      if (due.size === 0) process.nextTick(flushDue);
      due.add(conn);
    };
  });
}
