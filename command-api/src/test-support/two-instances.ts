import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import type { EventStore } from '@pass/events';
import { openPostgresEventStore } from '@pass/events/store';
import { testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import type { CommandApiAdapters } from '../command-api';
import { RedisAggregateSnapshots } from '../kernel/aggregate-snapshots';
import type { PaymentProvider } from '../payments/provider/port';
import { commandApiRedisKeys } from '../redis-keys';
import { ActionThrottle, DEFAULT_LOGIN_LIMITS, LoginThrottle, type ActionLimits, type LoginLimits } from '../sessions/rate-limiter';
import { RedisSessionStore } from '../sessions/redis-session-store';
import { BullMqImageJobs } from '../uploads/image-jobs';
import { RELAXED_ACTION_LIMITS, startHarness, type Harness } from './harness';

/** Two command-api processes' worth of composition on one PostgreSQL schema and one Redis key prefix. */
export interface TwoInstances {
  a: Harness;
  b: Harness;
  /** The uploads folder both share (as a shared volume would be). */
  uploadsDir: string;
  /**
   * Holds every append of both instances this long before sending it: a store slow to commit, as
   * under load. Requests racing on the other instance then decide while the first append is in
   * flight, where without it their own slower steps (a password's hash) may keep them apart.
   */
  setAppendLatency(ms: number): void;
  close(): Promise<void>;
}

export interface TwoInstancesOptions {
  loginLimits?: LoginLimits;
  actionLimits?: ActionLimits;
  /**
   * The payment provider both ask (PayPal is one service for every instance); none: each has
   * its own in-memory simulated one.
   */
  payments?: PaymentProvider;
}

/** The store's appends, each sent `latencyMs()` later (a store slow to commit). */
function delayAppends(store: EventStore, latencyMs: () => number): void {
  const append = store.append.bind(store);
  store.append = async (...args) => {
    if (latencyMs() > 0) await sleep(latencyMs());
    return append(...args);
  };
}

/**
 * Starts two command APIs as infra composes them with DATABASE_URL and REDIS_URL: each its own
 * store pool and Redis connection, on a fresh schema and key prefix that `close()` removes.
 */
export async function startTwoInstances(options: TwoInstancesOptions = {}): Promise<TwoInstances> {
  const schema = `cmd_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const prefix = `test:${randomUUID()}:`;
  const uploadsDir = await mkdtemp(join(tmpdir(), 'pass-dist-uploads-'));
  const stores: EventStore[] = [];
  const connections: Redis[] = [];
  const harnesses: Harness[] = [];
  const logger = pino({ level: 'silent' });
  let appendLatencyMs = 0;

  /** One instance's adapters on the Redis both share (its own connection). */
  async function redisAdapters(): Promise<CommandApiAdapters> {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    connections.push(redis);
    const keys = commandApiRedisKeys(prefix);
    return {
      sessionStore: await RedisSessionStore.withLocalCache(redis, keys.sessions, { logger }),
      snapshots: new RedisAggregateSnapshots(redis, keys.aggregateSnapshots),
      loginThrottle: LoginThrottle.onRedis(redis, keys.loginLimits, options.loginLimits ?? DEFAULT_LOGIN_LIMITS),
      actionThrottle: ActionThrottle.onRedis(redis, keys.actionLimits, options.actionLimits ?? RELAXED_ACTION_LIMITS),
      images: new BullMqImageJobs({ redisUrl: testRedisUrl(), uploadsDir, logger, prefix: keys.imageJobs }),
      ...(options.payments ? { payments: options.payments } : {}),
    };
  }

  const close = async () => {
    for (const h of harnesses) await h.close();
    for (const redis of connections) await redis.quit();
    for (const store of stores) await store.close();
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    await rm(uploadsDir, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < 2; i++) {
      const store = await openPostgresEventStore({ connectionString: testPostgresUrl(), schema });
      stores.push(store);
      delayAppends(store, () => appendLatencyMs);
      harnesses.push(await startHarness({ store, config: { uploadsDir }, adapters: await redisAdapters() }));
    }
  } catch (error) {
    await close();
    throw error;
  }
  const [a, b] = harnesses as [Harness, Harness];
  return { a, b, uploadsDir, setAppendLatency: (ms) => (appendLatencyMs = ms), close };
}
