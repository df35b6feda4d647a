import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, CommandGateway, ServerToClientEvents, SessionVerifier } from '@pass/events';
import { createMemoryReadModels } from '@pass/projector';
import { anyOrigin } from '../test-support/read-side';
import { silentLongPolling, silentWebSocket, type SilentClient } from '../test-support/silent-clients';
import { attachSocketServer } from './server';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The connection guard of the Socket.IO server (connections.ts) on a bare HTTP server: sockets
 * per client address, and what may wait to be written to one connection. A client that stops
 * reading is cut off; one that reads what it is sent is not.
 */
describe('Socket.IO connections: at most a few per client, and never an endless write queue', () => {
  const LIMIT_BYTES = 256 * 1024;
  let http: HttpServer;
  let attached: ReturnType<typeof attachSocketServer>;
  let url: string;
  const opened: ClientSocket[] = [];
  const silent: SilentClient[] = [];

  beforeAll(async () => {
    http = createServer();
    attached = attachSocketServer(http, {
      readModels: createMemoryReadModels(),
      sessions: { verify: async () => ({ user: null }) } as unknown as SessionVerifier,
      gateway: {} as CommandGateway,
      logger: pino({ level: 'silent' }),
      checkOrigin: anyOrigin,
      connectedUsersRefreshMs: 60_000,
      limits: { socketsPerClient: 3, maxBufferedBytes: LIMIT_BYTES },
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', () => done()));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of opened) s.disconnect();
    for (const s of silent) s.destroy();
    await attached.close();
  });

  const open = (address: string) =>
    new Promise<ClientSocket | 'refused'>((done) => {
      const s: ClientSocket = connect(url, { transports: ['websocket'], reconnection: false, extraHeaders: { 'x-forwarded-for': address } });
      opened.push(s);
      s.once('connect', () => done(s));
      s.once('connect_error', () => done('refused'));
    });

  it('lets a client address hold socketsPerClient sockets, refuses more, and lets it in again once one closes', async () => {
    const first = await Promise.all([open('198.51.100.1'), open('198.51.100.1'), open('198.51.100.1')]);
    expect(first.every((s) => s !== 'refused')).toBe(true);
    expect(await open('198.51.100.1')).toBe('refused');
    // Another address is not affected.
    expect(await open('198.51.100.2')).not.toBe('refused');
    (first[0] as ClientSocket).disconnect();
    await wait(100);
    expect(await open('198.51.100.1')).not.toBe('refused');
  });

  it('counts long-polling handshakes too', async () => {
    const address = '198.51.100.3';
    for (let i = 0; i < 3; i++) silent.push(await silentLongPolling(url, { address, holdPoll: false }));
    await expect(silentLongPolling(url, { address, holdPoll: false })).rejects.toThrow(/403|400/);
  });

  /** The server's engine.io connections from `address`. */
  const connectionsFrom = (address: string) =>
    Object.values((attached.io.engine as unknown as { clients: Record<string, { request: { headers: Record<string, unknown> } }> }).clients).filter(
      (conn) => conn.request.headers['x-forwarded-for'] === address,
    ).length;

  it('cuts off a WebSocket that does not read once its queue passes the bound; a reading socket on the same broadcasts stays', async () => {
    const reader = (await open('198.51.100.4')) as ClientSocket;
    let received = 0;
    reader.on('chatMessages', () => received++);
    silent.push(await silentWebSocket(url, { address: '198.51.100.5' }));
    expect(connectionsFrom('198.51.100.5')).toBe(1);
    const payload = { total: 1, messages: [{ id: 'x', message: 'y'.repeat(64 * 1024) }] } as never;
    // Up to 20 MB: far more than the kernel's buffers take for a client that does not read.
    for (let i = 0; i < 320 && connectionsFrom('198.51.100.5') > 0; i++) {
      attached.io.emit('chatMessages', payload);
      await wait(5);
    }
    expect(connectionsFrom('198.51.100.5')).toBe(0);
    await expect.poll(() => received, { timeout: 10_000 }).toBeGreaterThan(20);
    expect(reader.connected).toBe(true);
  });

  it('cuts off a long-polling client that stopped polling once what is queued for it passes the bound', async () => {
    silent.push(await silentLongPolling(url, { address: '198.51.100.7', holdPoll: false }));
    expect(connectionsFrom('198.51.100.7')).toBe(1);
    const payload = { total: 1, messages: [{ id: 'x', message: 'y'.repeat(64 * 1024) }] } as never;
    for (let i = 0; i < 40 && connectionsFrom('198.51.100.7') > 0; i++) {
      attached.io.emit('chatMessages', payload);
      await wait(5);
    }
    expect(connectionsFrom('198.51.100.7')).toBe(0);
  });

  it('holds the library internals it relies on (engine.io packetCreate and flush, ws terminate and bufferedAmount)', async () => {
    const s = (await open('198.51.100.6')) as ClientSocket;
    type Conn = { on(e: string, l: () => void): void; transport: { name: string; socket: { terminate?: unknown; bufferedAmount?: unknown } } };
    const conn = Object.values((attached.io.engine as unknown as { clients: Record<string, Conn> }).clients).at(-1)!;
    const seen: string[] = [];
    conn.on('packetCreate', () => seen.push('packetCreate'));
    conn.on('flush', () => seen.push('flush'));
    attached.io.emit('connectedUsers', 1);
    await wait(50);
    expect(seen).toEqual(expect.arrayContaining(['packetCreate', 'flush']));
    expect(conn.transport.name).toBe('websocket');
    expect(typeof conn.transport.socket.terminate).toBe('function');
    expect(typeof conn.transport.socket.bufferedAmount).toBe('number');
    s.disconnect();
  });
});
