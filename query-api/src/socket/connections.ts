import type { IncomingMessage } from 'node:http';
import type { Server } from 'socket.io';

/**
 * What this module touches of an engine.io connection and its transports (the WebSocket's
 * `terminate` and `bufferedAmount` are the `ws` library's; engine.io's types do not name them).
 * connections.test.ts holds them to the libraries installed.
 */
export interface EngineConnection {
  readonly request: IncomingMessage;
  readonly readyState: string;
  readonly transport?: { name?: string; socket?: { bufferedAmount?: number; terminate?: () => void } };
  close(discard?: boolean): void;
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): void;
  on(event: 'flush', listener: () => void): void;
  once(event: 'close', listener: () => void): void;
}

/** Why a connection was closed by the server rather than by its client. */
export type CutReason = 'sockets per client' | 'write buffer full';

/**
 * Closes a connection now, whatever it has queued: engine.io's own close waits for the queue to
 * drain, and a WebSocket's waits for the client to answer its close frame; a client that does
 * not read does neither.
 */
export function cutOff(conn: EngineConnection): void {
  if (conn.readyState === 'closed') return;
  const transport = conn.transport;
  if (transport?.name === 'websocket') transport.socket?.terminate?.();
  conn.close(true);
}

const sizeOf = (data: unknown): number =>
  typeof data === 'string' ? data.length : data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data.byteLength : 0;

/** What waits to be written: packets engine.io queued since its last flush, plus the WebSocket's own buffer. */
function boundWrites(conn: EngineConnection, maxBytes: number, overflow: () => void): void {
  let queued = 0;
  conn.on('packetCreate', (packet) => {
    queued += sizeOf(packet.data);
    if (queued + (conn.transport?.socket?.bufferedAmount ?? 0) > maxBytes) overflow();
  });
  conn.on('flush', () => {
    queued = 0;
  });
}

export interface ConnectionGuard {
  /** Whether a handshake from this request's client address may open one more connection. */
  admits(req: IncomingMessage): boolean;
}

/**
 * Per engine.io connection (every transport, before Socket.IO's own connect): at most
 * `socketsPerClient` open per client address on this process (handshakes past it are refused by
 * `admits`; one that raced past is closed at once), and at most `maxBufferedBytes` waiting to be
 * written to it, past which it is closed rather than buffered without end.
 */
export function guardConnections(
  io: Server,
  options: { socketsPerClient: number; maxBufferedBytes: number; addressOf: (req: IncomingMessage) => string; onCut: (reason: CutReason) => void },
): ConnectionGuard {
  const open = new Map<string, number>();
  io.engine.on('connection', (raw: unknown) => {
    const conn = raw as EngineConnection;
    const address = options.addressOf(conn.request);
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    conn.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    // Closed on the next tick, out of engine.io's handshake (or send) that is still running.
    if (count > options.socketsPerClient) {
      options.onCut('sockets per client');
      return process.nextTick(cutOff, conn);
    }
    let cut = false;
    boundWrites(conn, options.maxBufferedBytes, () => {
      if (cut) return;
      cut = true;
      options.onCut('write buffer full');
      process.nextTick(cutOff, conn);
    });
  });
  return { admits: (req) => (open.get(options.addressOf(req)) ?? 0) < options.socketsPerClient };
}
