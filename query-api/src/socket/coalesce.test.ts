import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceWrites } from './coalesce';

/** Counts the system-call-level writes (`_write` / `_writev`) of a server-side TCP socket. */
function countWrites(raw: { _write: (...a: unknown[]) => unknown; _writev?: (...a: unknown[]) => unknown }): { calls: number } {
  const counter = { calls: 0 };
  const write = raw._write.bind(raw);
  raw._write = (...args: unknown[]) => {
    counter.calls++;
    return write(...args);
  };
  if (raw._writev) {
    const writev = raw._writev.bind(raw);
    raw._writev = (...args: unknown[]) => {
      counter.calls++;
      return writev(...args);
    };
  }
  return counter;
}

const received = (socket: Socket, events: string[], count: number) =>
  new Promise<string[]>((done) => {
    const seen: string[] = [];
    socket.onAny((event: string, payload: unknown) => {
      if (!events.includes(event)) return;
      seen.push(`${event}:${JSON.stringify(payload)}`);
      if (seen.length === count) done(seen);
    });
  });

describe('coalesceWrites', () => {
  let http: HttpServer;
  let io: Server;
  let url: string;
  const clients: Socket[] = [];

  beforeAll(async () => {
    http = createServer();
    io = new Server(http);
    coalesceWrites(io);
    io.on('connection', (socket) => {
      socket.on('echo', (value: unknown, ack: (v: unknown) => void) => ack(value));
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', () => done()));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await io.close();
  });

  const open = async (transport: 'websocket' | 'polling') => {
    const socket = connect(url, { transports: [transport], reconnection: false, forceNew: true });
    clients.push(socket);
    await new Promise<void>((done, fail) => {
      socket.once('connect', () => done());
      socket.once('connect_error', fail);
    });
    return socket;
  };
  const rawOf = (id: string) =>
    (io.sockets.sockets.get(id)!.conn as unknown as { transport: { socket: { _socket: Parameters<typeof countWrites>[0] } } }).transport.socket._socket;

  it('sends the broadcasts of one tick to each websocket in one write, in order', async () => {
    const sockets = await Promise.all([open('websocket'), open('websocket')]);
    const counters = sockets.map((s) => countWrites(rawOf(s.id!)));
    const arrivals = sockets.map((s) => received(s, ['first', 'second', 'third'], 3));
    io.emit('first', 1);
    io.emit('second', { two: 2 });
    io.to(sockets[0]!.id!).to(sockets[1]!.id!).emit('third', 'three');
    for (const arrival of arrivals) expect(await arrival).toEqual(['first:1', 'second:{"two":2}', 'third:"three"']);
    expect(counters.map((c) => c.calls)).toEqual([1, 1]);
  });

  it('writes anything but a broadcast at once, taking along a broadcast waiting for that socket', async () => {
    const client = await open('websocket');
    const counter = countWrites(rawOf(client.id!));
    const server = io.sockets.sockets.get(client.id!)!;
    const first = received(client, ['direct'], 1);
    server.emit('direct', 1);
    expect(counter.calls).toBe(1);
    expect(await first).toEqual(['direct:1']);
    const arrival = received(client, ['everyone', 'reply'], 2);
    io.emit('everyone', 2);
    expect(counter.calls).toBe(1);
    server.emit('reply', 3);
    expect(counter.calls).toBe(2);
    expect(await arrival).toEqual(['everyone:2', 'reply:3']);
    expect(counter.calls).toBe(2);
  });

  it('still answers acknowledgements and reaches long-polling clients', async () => {
    const ws = await open('websocket');
    expect(await ws.emitWithAck('echo', 'hello')).toBe('hello');
    const polling = await open('polling');
    expect(await polling.emitWithAck('echo', { n: 1 })).toEqual({ n: 1 });
    const got = received(polling, ['late'], 1);
    io.emit('late', true);
    expect(await got).toEqual(['late:true']);
  });
});
