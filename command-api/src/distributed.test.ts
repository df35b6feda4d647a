import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE, type EventStore } from '@pass/events';
import { openPostgresEventStore } from '@pass/events/store';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import type { CommandApiAdapters } from './command-api';
import { RedisAggregateSnapshots } from './kernel/aggregate-snapshots';
import type { SimulatedPaymentProvider } from './payments/provider/simulated-provider';
import { commandApiRedisKeys } from './redis-keys';
import { ActionThrottle, DEFAULT_LOGIN_LIMITS, LoginThrottle } from './sessions/rate-limiter';
import { RedisSessionStore } from './sessions/redis-session-store';
import { RELAXED_ACTION_LIMITS, startHarness, type Harness } from './test-support/harness';
import { smallPng } from './test-support/images';
import { BullMqImageJobs } from './uploads/image-jobs';

const pgUp = await requireService('command-api distributed (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('command-api distributed (Redis)', testRedisUrl(), 6379);

/** Two command-api processes' worth of composition on one PostgreSQL store and one Redis. */
describe.skipIf(!pgUp || !redisUp)('distributed mode: two command-api instances', () => {
  const schema = `cmd_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const prefix = `test:${randomUUID()}:`;
  let stores: EventStore[] = [];
  let a: Harness;
  let b: Harness;
  let uploadsDir: string;
  const connections: Redis[] = [];

  /** One instance's adapters on the Redis both share, as infra composes them with REDIS_URL (its own connection). */
  async function redisAdapters(): Promise<CommandApiAdapters> {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    connections.push(redis);
    const keys = commandApiRedisKeys(prefix);
    const logger = pino({ level: 'silent' });
    return {
      sessionStore: await RedisSessionStore.withLocalCache(redis, keys.sessions, { logger }),
      snapshots: new RedisAggregateSnapshots(redis, keys.aggregateSnapshots),
      loginThrottle: LoginThrottle.onRedis(redis, keys.loginLimits, { ...DEFAULT_LOGIN_LIMITS, failuresPerAccountAndIp: { max: 3, windowMs: 60_000 } }),
      actionThrottle: ActionThrottle.onRedis(redis, keys.actionLimits, RELAXED_ACTION_LIMITS),
      images: new BullMqImageJobs({ redisUrl: testRedisUrl(), uploadsDir, logger, prefix: keys.imageJobs }),
    };
  }

  beforeAll(async () => {
    uploadsDir = await mkdtemp(join(tmpdir(), 'pass-dist-uploads-'));
    stores = [await openPostgresEventStore({ connectionString: testPostgresUrl(), schema }), await openPostgresEventStore({ connectionString: testPostgresUrl(), schema })];
    a = await startHarness({ store: stores[0], config: { uploadsDir }, adapters: await redisAdapters() });
    b = await startHarness({ store: stores[1], config: { uploadsDir }, adapters: await redisAdapters() });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const redis of connections) await redis.quit();
    for (const store of stores) await store.close();
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    await rm(uploadsDir, { recursive: true, force: true });
  });

  it('share sessions, logouts, login limits and the 30 s rule', async () => {
    const onA = a.browser();
    const { body: user } = await onA.request('POST', '/api/register-user', { email: 'dist@example.com', password: 'pass1' });
    const onB = b.browser();
    onB.cookies.set(USER_SESSION_COOKIE, onA.cookies.get(USER_SESSION_COOKIE)!);
    expect((await onB.request('GET', `/api/verify-access/${user.id}`)).status).toBe(200);

    // Each instance caches the member; the store's revision check keeps the rule across them.
    // B checks the ticket A's rule accepted (one session secret) and sees the point A recorded.
    const ticket = { ticket: a.adViewTicket(user.id) };
    expect((await onA.request('POST', '/api/free-point', ticket)).status).toBe(200);
    expect((await onB.request('POST', '/api/free-point', ticket)).status).toBe(409);
    expect((await onB.request('POST', '/api/free-point', { ticket: b.adViewTicket(user.id, 0) })).status).toBe(429);

    // Failed passwords count across instances (the harness's clients share one address).
    for (const h of [a, b, a]) expect((await h.browser().request('POST', '/api/register-user', { email: 'dist@example.com', password: 'bad1' })).status).toBe(401);
    expect((await b.browser().request('POST', '/api/register-user', { email: 'dist@example.com', password: 'pass1' })).status).toBe(429);

    expect((await onB.request('POST', '/api/logout')).status).toBe(204);
    expect((await onA.request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
  });

  it('processes uploads on the BullMQ workers into the shared uploads folder', async () => {
    const m = b.browser();
    const { body: user } = await m.request('POST', '/api/register-user', { email: 'dist-post@example.com', password: 'pass1' });
    const provider = b.api.payments as SimulatedPaymentProvider;
    const { orderId } = await provider.createOrder(user.id, 1);
    await provider.captureOrder(orderId);
    expect((await m.request('POST', '/api/buy-points', { orderId })).status).toBe(200);
    const admin = a.browser();
    await admin.request('POST', '/api/admin-login', { email: 'admin@example.com', password: 'admin-pass-123' });
    expect((await admin.request('PUT', '/api/main-data', { available: 10, cpm: 1, donations: 0, startDate: '' })).status).toBe(200);

    const form = new FormData();
    for (const [k, v] of Object.entries({ fullname: 'Dist', country: 'Peru', email: 'dist-post@example.com', link: 'https://dist.example.com', message: 'Over Redis', passes: '2' })) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'p.png');
    const res = await m.form('/api/register-special-user', form);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ passes: 2 });
    expect((await readFile(join(uploadsDir, res.body.user.image.path))).length).toBeGreaterThan(0);
    expect((await fetch(a.url + res.body.user.image.url)).status).toBe(200);
  });
});
