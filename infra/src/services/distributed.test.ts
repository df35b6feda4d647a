import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdViewTickets } from '@pass/command-api';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { readMail } from '../mail/outbox';
import { Browser, nextEvent, type LiveClient } from '../test-support/client';
import { distributedDeployment, pollUntil } from '../test-support/distributed';
import { spawnService, type SpawnedService } from '../test-support/spawn-process';

const pgUp = await requireService('infra: distributed processes (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra: distributed processes (Redis)', testRedisUrl(), 6379);


/**
 * The distributed layout as separate processes on loopback: command-api, projector and two
 * query-api instances on one PostgreSQL schema and one Redis key prefix, behind the Node proxy.
 */
describe.skipIf(!pgUp || !redisUp)('distributed mode: one process per service', () => {
  const deployment = distributedDeployment('infra');
  const { schema, prefix, dir } = deployment;
  const env = { ...deployment.env, ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-pass-123' };
  const services: SpawnedService[] = [];
  const browsers: Browser[] = [];
  let commandApi: SpawnedService;
  let queryA: SpawnedService;
  let queryB: SpawnedService;
  let proxy: SpawnedService;

  beforeAll(async () => {
    // command-api first: the query-api instances forward socket commands to its URL.
    commandApi = await spawnService('command-api', env);
    services.push(commandApi);
    const started = await Promise.allSettled([
      spawnService('projector', env),
      spawnService('query-api', { ...env, COMMAND_API_URL: commandApi.url }),
      spawnService('query-api', { ...env, COMMAND_API_URL: commandApi.url }),
    ]);
    for (const s of started) if (s.status === 'fulfilled') services.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    [, , queryA, queryB] = services as [SpawnedService, SpawnedService, SpawnedService, SpawnedService];
    proxy = await spawnService('proxy', { COMMAND_API_URL: commandApi.url, QUERY_API_URLS: `${queryA.url},${queryB.url}` });
    services.push(proxy);
  }, 90_000);

  afterAll(async () => {
    for (const b of browsers) b.close();
    const codes = await Promise.all(services.map((s) => s.stop('SIGTERM')));
    await deployment.cleanUp();
    // Every process stopped gracefully on SIGTERM.
    expect(codes, services.map((s) => `${s.name}: ${s.stderr.join('')}`).join('\n')).toEqual(services.map(() => 0));
  }, 30_000);

  const browser = (origin: string) => {
    const b = new Browser(origin);
    browsers.push(b);
    return b;
  };

  it('every process reports ready, naming its dependencies', async () => {
    for (const s of [commandApi, queryA, queryB, services[1]!]) {
      const ready = await pollUntil(() => fetch(`${s.url}/readyz`).then((r) => r.status), (status) => status === 200);
      expect(ready, s.name).toBe(200);
    }
    expect(await (await fetch(`${queryA.url}/healthz`)).json()).toMatchObject({ mode: 'distributed', service: 'query-api', eventStore: 'postgres' });
    expect((await fetch(`${proxy.url}/metrics`)).status).toBe(404);
  });

  it('a chat message sent on instance A reaches a socket on instance B; connectedUsers counts both', async () => {
    const member = browser(proxy.url);
    const joined = await member.request('POST', '/api/register-user', { email: 'across@example.com', password: 'pass1' });
    expect([200, 201]).toContain(joined.status);

    const onA = await member.socket(queryA.url);
    const bothOnA = nextEvent(onA, 'connectedUsers', (n) => n === 2);
    // A visitor from another client address (the figure counts visitors, not sockets).
    const guest = browser(queryB.url);
    guest.address = '203.0.113.20';
    const onB = await guest.socket();
    const bothOnB = nextEvent(onB, 'connectedUsers', (n) => n === 2);
    expect(await bothOnA).toBe(2);
    expect(await bothOnB).toBe(2);

    const arrived = nextEvent(onB, 'chatMessage', (m) => m.message === 'Across instances');
    const ack = await onA.timeout(10_000).emitWithAck('sendChatMessage', { message: 'Across instances' });
    expect(ack).toMatchObject({ ok: true });
    expect(await arrived).toMatchObject({ userId: joined.body.id, message: 'Across instances' });
    onA.disconnect();
    onB.disconnect();
  });

  it('the core journey through the proxy: register, free point, chat, main data, live events over polling and WebSocket', async () => {
    const member = browser(proxy.url);
    const before = (await member.request('GET', '/api/main-data')).body;
    const joined = await member.request('POST', '/api/register-user', { email: 'journey@example.com', password: 'pass1' });
    expect([200, 201]).toContain(joined.status);
    // A countdown that started 29 s ago: its ticket signed with the deployment's session secret.
    const ticket = new AdViewTickets(env.SESSION_SECRET).issue(joined.body.id, new Date(Date.now() - 29_000)).ticket;
    const point = await member.request('POST', '/api/free-point', { ticket });
    expect(point.status).toBe(200);
    expect(point.body.user.chatCount).toBe(joined.body.chatCount + 1);
    // verify-access is a command-api read; the session cookie set through the proxy works there.
    expect((await member.request('GET', `/api/verify-access/${joined.body.id}`)).status).toBe(200);
    // /api/me is a query-api read: the session issued by command-api is verified from Redis.
    expect((await member.request('GET', '/api/me')).body).toMatchObject({ id: joined.body.id });

    // Socket.IO through the proxy: a WebSocket upgrade, and long-polling kept on one instance by the sticky cookie.
    const overWebSocket = await member.socket(proxy.url);
    const overPolling: LiveClient = connect(proxy.url, { transports: ['polling'], reconnection: false, withCredentials: true });
    await new Promise<void>((done, fail) => {
      overPolling.once('connect', () => done());
      overPolling.once('connect_error', fail);
    });
    try {
      const wsGot = nextEvent(overWebSocket, 'chatMessage', (m) => m.message === 'Through the proxy');
      const pollGot = nextEvent(overPolling, 'chatMessage', (m) => m.message === 'Through the proxy');
      const sent = await member.request('POST', '/api/chat-messages', { message: 'Through the proxy' });
      expect(sent.status).toBe(201);
      await Promise.all([wsGot, pollGot]);
    } finally {
      overPolling.disconnect();
      overWebSocket.disconnect();
    }

    const main = await pollUntil(
      () => member.request('GET', '/api/main-data').then((r) => r.body),
      (m) => m.globalMessages === before.globalMessages + 1,
    );
    expect(main.globalMessages).toBe(before.globalMessages + 1);
    const chat = await member.request('GET', '/api/chat-messages?limit=50');
    expect(chat.body.messages.map((m: { message: string }) => m.message)).toContain('Through the proxy');
  });

  it("a member's data and access through the proxy: the export comes from command-api; a reset link from the outbox ends every session on both query-api instances", async () => {
    const address = 'recover@example.com';
    const laptop = browser(proxy.url);
    const joined = await laptop.request('POST', '/api/register-user', { email: address, password: 'old1' });
    expect([200, 201]).toContain(joined.status);
    const exported = await laptop.request('GET', '/api/my-data');
    expect(exported.status).toBe(200);
    expect(exported.body.account).toMatchObject({ id: joined.body.id, email: address });
    /** The laptop's cookies sent straight to one query-api instance. */
    const meOn = (q: SpawnedService) => {
      const replay = new Browser(q.url);
      for (const [k, v] of laptop.cookies) replay.cookies.set(k, v);
      return replay.request('GET', '/api/me').then((r) => r.status);
    };
    for (const q of [queryA, queryB]) expect(await meOn(q), q.name).toBe(200);
    const onA = await laptop.socket(queryA.url);

    expect((await browser(proxy.url).request('POST', '/api/password-reset', { email: address })).status).toBe(202);
    const outbox = join(dir, 'outbox');
    const mail = await pollUntil(
      async () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []),
      (files) => files.length === 1,
    );
    expect(mail).toHaveLength(1);
    const { links } = readMail(mail[0]!, readFileSync(join(outbox, mail[0]!), 'latin1'));
    const token = decodeURIComponent(links.map((link) => /\/content\/reset-password#token=(\S+)/.exec(link)?.[1]).find(Boolean)!);
    expect((await browser(proxy.url).request('POST', '/api/password-reset/confirm', { token, password: 'new1' })).status).toBe(204);

    for (const q of [queryA, queryB]) expect(await meOn(q), q.name).toBe(401);
    expect(await onA.timeout(10_000).emitWithAck('decreaseChatCount')).toMatchObject({ ok: false, status: 401 });
    expect((await laptop.request('GET', '/api/my-data')).status).toBe(401);
    expect((await browser(proxy.url).request('POST', '/api/register-user', { email: address, password: 'new1' })).status).toBe(200);
    onA.disconnect();
  });

  it('an admin erases a member through the proxy: no row of the schema, no line of its pg_dump and no Redis value under the prefix holds their e-mail or chat text, and the rebuild below keeps them erased', async () => {
    const member = browser(proxy.url);
    const joined = await member.request('POST', '/api/register-user', { email: 'erase.dist@example.com', password: 'pass1' });
    expect(joined.status).toBe(201);
    expect((await member.request('POST', '/api/chat-messages', { message: 'distributed secret' })).status).toBe(201);
    const chatShows = (text: string) => member.request('GET', '/api/chat-messages?limit=50').then((r) => JSON.stringify(r.body).includes(text));
    expect(await pollUntil(() => chatShows('distributed secret'), (shown) => shown)).toBe(true);

    const admin = browser(proxy.url);
    expect((await admin.request('POST', '/api/admin-login', { email: 'admin@example.com', password: 'admin-pass-123' })).status).toBe(200);
    expect((await admin.request('DELETE', `/api/admin/members/${joined.body.id}`)).status).toBe(204);
    expect(await pollUntil(() => chatShows('distributed secret'), (shown) => !shown)).toBe(false);
    expect((await member.request('GET', '/api/my-data')).status).toBe(401);

    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    const rows = await client
      .query<{ row: string }>(`SELECT e::text AS row FROM "${schema}".events e UNION ALL SELECT k::text FROM "${schema}".member_keys k UNION ALL SELECT s::text FROM "${schema}".streams s`)
      .finally(() => client.end());
    const redis = new Redis(testRedisUrl());
    const values: string[] = [];
    try {
      for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 })) {
        for (const key of keys as string[]) {
          const type = await redis.type(key);
          if (type === 'string') values.push((await redis.get(key)) ?? '');
          else if (type === 'hash') values.push(JSON.stringify(await redis.hgetall(key)));
          else if (type === 'list') values.push(JSON.stringify(await redis.lrange(key, 0, -1)));
          else if (type === 'zset') values.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
          else if (type === 'set') values.push(JSON.stringify(await redis.smembers(key)));
          else if (type === 'stream') values.push(JSON.stringify(await redis.xrange(key, '-', '+')));
        }
      }
    } finally {
      redis.disconnect();
    }
    // What an operator's backup holds (docs/operations.md): a plain-text dump of the store's schema.
    const dump = execFileSync('pg_dump', ['--dbname', testPostgresUrl(), '--schema', schema, '--no-owner'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(dump).toContain(joined.body.id);
    const everything = [...rows.rows.map((r) => r.row), ...values, dump].join('\n');
    expect(everything).toContain(joined.body.id);
    for (const secret of ['erase.dist@example.com', 'distributed secret']) expect(everything).not.toContain(secret);
  });

  it('an admin rebuild asked on query-api runs in the projector process and switches readers over', async () => {
    const admin = browser(proxy.url);
    expect((await admin.request('POST', '/api/admin-login', { email: 'admin@example.com', password: 'admin-pass-123' })).status).toBe(200);
    const before = (await admin.request('GET', '/api/main-data')).body;
    const asked = await admin.request('POST', '/api/admin/projections/rebuild');
    expect(asked.status).toBe(202);
    const done = await pollUntil(
      () => admin.request('GET', '/api/admin/projections').then((r) => r.body),
      (s) => s.rebuild.state === 'idle' && s.rebuild.startedAt !== null,
      20_000,
    );
    expect(done).toMatchObject({ lastError: null, rebuild: { state: 'idle' } });
    expect(done.rebuild.processed).toBeGreaterThan(0);
    expect((await admin.request('GET', '/api/main-data')).body).toEqual(before);
  });

  it('an admin replay asked through the proxy runs in the projector process, answers on both query-api instances, and is deleted through the proxy', async () => {
    const admin = browser(proxy.url);
    expect((await admin.request('POST', '/api/admin-login', { email: 'admin@example.com', password: 'admin-pass-123' })).status).toBe(200);
    const status = await pollUntil(() => admin.request('GET', '/api/admin/projections').then((r) => r.body), (s) => s.lagEvents === 0);
    const now = { main: (await admin.request('GET', '/api/main-data')).body, ranking: (await admin.request('GET', '/api/ranking?pageSize=100')).body };
    const asked = await admin.request('POST', '/api/admin/replays', { position: status.position });
    expect(asked.status).toBe(202);
    const id = asked.body.id as string;
    const ready = await pollUntil(() => admin.request('GET', `/api/admin/replays/${id}`).then((r) => r.body), (s) => s.status !== 'running', 20_000);
    expect(ready).toMatchObject({ id, status: 'ready', progress: 1, position: status.position });
    for (const instance of [queryA, queryB]) {
      const direct = browser(instance.url);
      for (const [name, value] of admin.cookies) direct.cookies.set(name, value);
      expect((await direct.request('GET', `/api/admin/replays/${id}/main-data`)).body).toEqual(now.main);
      expect((await direct.request('GET', `/api/admin/replays/${id}/ranking?pageSize=100`)).body).toEqual(now.ranking);
    }
    expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
    expect((await admin.request('GET', `/api/admin/replays/${id}`)).status).toBe(404);
  });
});
