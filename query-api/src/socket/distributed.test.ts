import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, EventStore, ServerToClientEvents } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createRedisReadModels, createProjector, deleteKeysUnder, redisEmitterPublisher, type Projector } from '@pass/projector';
import { appendEvents } from '@pass/projector/test-support';
import { recordedDay } from '@pass/projector/test-support';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import { attachSocketServer } from './server';
import { anyOrigin } from '../test-support/read-side';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
const reachable = await requireService('query-api: distributed Socket.IO (Redis adapter + emitter)', testRedisUrl(), 6379);

/**
 * Distributed mode on loopback: two query-api Socket.IO instances on the Redis adapter, and a
 * projector with no sockets of its own publishing through the Redis emitter.
 */
describe.skipIf(!reachable)('two Socket.IO instances and a projector sharing Redis', () => {
  const logger = pino({ level: 'silent' });
  const key = `test:sio:${randomUUID()}`;
  const root = `test:rm:${randomUUID()}`;
  const clients: Redis[] = [];
  const servers: Array<{ http: Server; close(): Promise<void>; url: string }> = [];
  const sockets: ClientSocket[] = [];
  let store: EventStore;
  let projector: Projector;
  let commandApi: CommandApi;
  const redis = () => {
    const r = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    clients.push(r);
    return r;
  };

  beforeAll(async () => {
    store = await openPgliteEventStore();
    commandApi = await createCommandApi({ eventStore: store, logger, config: { uploadsDir: `/tmp/pass-dist-${randomUUID()}`, cookieSecure: false, sessionSecret: 's'.repeat(40) } });
    const readModels = createRedisReadModels({ redis: redis(), root });
    for (let i = 0; i < 2; i++) {
      const http = createServer();
      const attached = attachSocketServer(http, {
        readModels,
        sessions: commandApi.sessions,
        gateway: commandApi.gateway,
        logger,
        redisAdapter: { pubClient: redis(), subClient: redis(), key },
        checkOrigin: anyOrigin,
        // Small enough for a test to reach from both instances.
        limits: { readsPerClient: { max: 6, windowMs: 10_000 } },
        budgetStore: { redis: redis(), prefix: `${key}:limits:` },
      });
      await new Promise<void>((done) => http.listen(0, '127.0.0.1', () => done()));
      servers.push({ http, close: attached.close, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` });
    }
    projector = createProjector({ eventStore: store, readModels, publisher: redisEmitterPublisher(redis(), { key }), logger });
    await projector.start();
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await projector.stop();
    for (const s of servers) await s.close();
    await commandApi.close();
    await store.close();
    await deleteKeysUnder(clients[0]!, root);
    for (const c of clients) c.disconnect();
  });

  const open = async (url: string, address: string) => {
    const s: ClientSocket = connect(url, { transports: ['websocket'], reconnection: false, extraHeaders: { 'x-forwarded-for': address } });
    sockets.push(s);
    await new Promise<void>((done, fail) => {
      s.once('connect', () => done());
      s.once('connect_error', fail);
    });
    return s;
  };

  it('counts the visitors of every instance', async () => {
    const a = await open(servers[0]!.url, '203.0.113.1');
    const seenOnA = new Promise<number>((done) => a.on('connectedUsers', (n) => n === 2 && done(n)));
    const b = await open(servers[1]!.url, '203.0.113.2');
    const seenOnB = new Promise<number>((done) => b.on('connectedUsers', (n) => n === 2 && done(n)));
    expect(await seenOnA).toBe(2);
    expect(await seenOnB).toBe(2);
  });

  it('delivers the projector’s live events to clients of both instances', async () => {
    const [a, b] = sockets as [ClientSocket, ClientSocket];
    const onA = new Promise((done) => a.once('globalMember', done));
    const onB = new Promise((done) => b.once('globalMember', done));
    const mainOnB = new Promise((done) => b.on('updatedMainData', (p) => p.mainData.members === 1 && done(p)));
    await appendEvents(store, recordedDay.slice(0, recordedDay.findIndex((e) => e.type === 'CertificatePosted') + 1));
    expect(await onA).toMatchObject({ user: { fullname: 'Ana María' } });
    expect(await onB).toMatchObject({ user: { fullname: 'Ana María' } });
    expect(await mainOnB).toMatchObject({ mainData: { members: 1 } });
  });

  it("shares a client address's read budget between the instances (in Redis)", async () => {
    const onA = await open(servers[0]!.url, '203.0.113.9');
    const onB = await open(servers[1]!.url, '203.0.113.9');
    let answered = 0;
    for (const s of [onA, onB]) {
      s.on('chatMessages', () => answered++);
      for (let i = 0; i < 5; i++) s.emit('getChatMessages');
    }
    await new Promise((done) => setTimeout(done, 1_000));
    expect(answered).toBe(6);
  });
});
