import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, EventStore, ServerToClientEvents, SignedOutNotice } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createMemoryReadModels, redisRoomEmitter } from '@pass/projector';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import { attachSocketServer } from './server';
import { socketSessionNotices, type RoomBroadcaster } from './member-rooms';
import { anyOrigin } from '../test-support/read-side';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
const reachable = await requireService('query-api: sign-out notices over Redis (command-api emitter, two Socket.IO instances)', testRedisUrl(), 6379);

/**
 * Distributed mode on loopback: command-api (its own HTTP server) announces ended sessions
 * through a Redis emitter; two query-api Socket.IO instances on the Redis adapter deliver them to
 * the member's sockets, whichever instance holds them.
 */
describe.skipIf(!reachable)("a member's ended sessions reach their sockets on every instance", () => {
  const logger = pino({ level: 'silent' });
  const key = `test:sio:${randomUUID()}`;
  const clients: Redis[] = [];
  const servers: Array<{ close(): Promise<void>; url: string }> = [];
  const sockets: ClientSocket[] = [];
  let store: EventStore;
  let commandApi: CommandApi;
  let api: Server;
  let apiUrl = '';
  const redis = () => {
    const r = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    clients.push(r);
    return r;
  };

  beforeAll(async () => {
    store = await openPgliteEventStore();
    const rooms = redisRoomEmitter(redis(), { key }) as unknown as RoomBroadcaster;
    commandApi = await createCommandApi({
      eventStore: store,
      logger,
      sessionNotices: socketSessionNotices(() => rooms),
      config: { uploadsDir: `/tmp/pass-notices-${randomUUID()}`, cookieSecure: false, sessionSecret: 's'.repeat(40) },
    });
    api = createServer(express().use(commandApi.router));
    await new Promise<void>((done) => api.listen(0, '127.0.0.1', () => done()));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const readModels = createMemoryReadModels();
    for (let i = 0; i < 2; i++) {
      const http = createServer();
      const attached = attachSocketServer(http, {
        readModels,
        sessions: commandApi.sessions,
        gateway: commandApi.gateway,
        logger,
        redisAdapter: { pubClient: redis(), subClient: redis(), key },
        checkOrigin: anyOrigin,
      });
      await new Promise<void>((done) => http.listen(0, '127.0.0.1', () => done()));
      servers.push({ close: attached.close, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` });
    }
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    for (const s of servers) await s.close();
    await new Promise((done) => api?.close(done));
    await commandApi?.close();
    await store?.close();
    for (const c of clients) c.disconnect();
  });

  const post = async (path: string, body: unknown, cookie?: string) =>
    fetch(apiUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
  /** Signs in (the first time registers) and returns the session cookie. */
  const signIn = async (email: string, password: string): Promise<string> => {
    const res = await post('/api/register-user', { email, password });
    expect([200, 201]).toContain(res.status);
    return res.headers.getSetCookie()[0]!.split(';')[0]!;
  };
  const open = async (url: string, cookie?: string) => {
    const s: ClientSocket = connect(url, { transports: ['websocket'], reconnection: false, ...(cookie ? { extraHeaders: { cookie } } : {}) });
    sockets.push(s);
    await new Promise<void>((done, fail) => {
      s.once('connect', () => done());
      s.once('connect_error', fail);
    });
    return s;
  };
  /** The notices a socket hears from now on. */
  const heard = (s: ClientSocket) => {
    const notices: SignedOutNotice[] = [];
    s.on('signedOut', (notice) => notices.push(notice));
    return notices;
  };
  /** Long enough for a socket's handshake to have joined its rooms, and for a notice to cross Redis. */
  const settle = () => new Promise((done) => setTimeout(done, 300));

  it('signing out everywhere tells every socket of the member, on both instances, and no one else', async () => {
    const email = `ana.${randomUUID().slice(0, 8)}@example.com`;
    const laptop = await signIn(email, 'pass1');
    const phone = await signIn(email, 'pass1');
    const stranger = await signIn(`bo.${randomUUID().slice(0, 8)}@example.com`, 'pass1');
    const onLaptop = heard(await open(servers[0]!.url, laptop));
    const onPhone = heard(await open(servers[1]!.url, phone));
    const onStranger = heard(await open(servers[1]!.url, stranger));
    const onGuest = heard(await open(servers[0]!.url));
    await settle();
    expect((await post('/api/logout-everywhere', {}, laptop)).status).toBe(204);
    await expect.poll(() => onPhone, { timeout: 3_000 }).toEqual([{ reason: 'everywhere' }]);
    await expect.poll(() => onLaptop, { timeout: 3_000 }).toEqual([{ reason: 'everywhere' }]);
    await settle();
    expect(onStranger).toEqual([]);
    expect(onGuest).toEqual([]);
  });

  it('a password change tells the other devices, not the one that changed it', async () => {
    const email = `cy.${randomUUID().slice(0, 8)}@example.com`;
    const laptop = await signIn(email, 'pass1');
    const phone = await signIn(email, 'pass1');
    const onLaptop = heard(await open(servers[0]!.url, laptop));
    const onPhone = heard(await open(servers[1]!.url, phone));
    await settle();
    expect((await post('/api/change-password', { currentPassword: 'pass1', newPassword: 'pass2' }, laptop)).status).toBe(204);
    await expect.poll(() => onPhone, { timeout: 3_000 }).toEqual([{ reason: 'password-changed' }]);
    await settle();
    expect(onLaptop).toEqual([]);
  });
});
