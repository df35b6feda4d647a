import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { EventStore } from '@pass/events';
import { redisConnectionOptions } from '@pass/events/redis';
import { createRedisReadModels } from '../read-models/redis';
import { scanKeys, type RedisConnection } from '../read-models/redis-admin';
import { keyspacePrefix } from '../read-models/redis/keys';
import type { ReadModelStore } from '../read-models/port';
import type { ReplayControl } from './control';
import { ReplayErasures } from './erasures';
import type { ReplayTarget } from './moment';
import { replayControl } from './replays';
import { runReplay, type ReplayRunnerDeps } from './runner';
import { redisReplayStates } from './states';

/**
 * Distributed mode: query-api queues a replay as a BullMQ job, as it does a rebuild; the
 * projector process runs it into Redis, into a keyspace under a root of its own (never listed,
 * switched to or dropped by the live projector's rebuilds), its status beside it. Both expire
 * REPLAY_TTL_MS after the replay was asked for, or go when it is deleted.
 */
const QUEUE = 'projection-replay';

/** How long a replay is kept in Redis: its keys and status then expire. */
export const REPLAY_TTL_MS = 24 * 60 * 60 * 1000;

export interface ReplayJobsOptions {
  redisUrl: string;
  /** BullMQ key prefix, e.g. `pass:bull`. */
  prefix: string;
  /** The read models' Redis (a Cluster when there is one). */
  readModelsRedis: RedisConnection;
  /** Root of the replays' keyspaces, e.g. `pass:rm:replay`. */
  root: string;
  /** Where the statuses are kept, e.g. `pass:projector:replays`. */
  stateRedis: RedisConnection;
  stateRoot: string;
  eventStore: EventStore;
  logger: Logger;
  ttlMs?: number;
  /** How often the worker takes members erased meanwhile out of ready replays (ERASURE_SWEEP_MS). */
  erasureSweepMs?: number;
  /** The live read models (where the worker runs): replays find members erased since their moment there. */
  liveReadModels?: ReadModelStore;
}

function runnerDeps(options: ReplayJobsOptions): ReplayRunnerDeps {
  const ttlMs = options.ttlMs ?? REPLAY_TTL_MS;
  return {
    eventStore: options.eventStore,
    states: redisReplayStates(options.stateRedis, options.stateRoot, ttlMs),
    keyspaces: createRedisReadModels({ redis: options.readModelsRedis, root: options.root }),
    logger: options.logger,
    ttlMs,
    expire: (id, atMs) => expireKeyspace(options.readModelsRedis, keyspacePrefix(options.root, id), atMs),
    ...(options.liveReadModels ? { live: () => options.liveReadModels!.active() } : {}),
  };
}

/** Every key of a ready replay's keyspace expires at `atMs`. */
async function expireKeyspace(redis: RedisConnection, prefix: string, atMs: number): Promise<void> {
  for await (const keys of scanKeys(redis, `${prefix}*`)) {
    for (const key of keys) await redis.pexpireat(key, atMs);
  }
}

/**
 * Runs queued replays in the projector process, one at a time. At start, keyspaces whose replay
 * is gone (deleted or expired while no worker ran) are dropped.
 */
export async function startReplayWorker(options: ReplayJobsOptions): Promise<{ close(): Promise<void> }> {
  const deps = runnerDeps(options);
  const log = options.logger.child({ component: 'replay-worker' });
  const kept = new Set(await deps.states.ids());
  for (const id of await deps.keyspaces.list()) {
    if (!kept.has(id)) await deps.keyspaces.drop(id);
  }
  const worker = new Worker(QUEUE, async (job) => runReplay(deps, job.id!, (job.data as { target: ReplayTarget }).target), {
    connection: redisConnectionOptions(options.redisUrl),
    prefix: options.prefix,
    concurrency: 1,
  });
  worker.on('failed', (_job, error) => log.error({ err: error }, 'replay job failed'));
  worker.on('error', (error) => log.warn({ err: error }, 'replay worker connection problem'));
  const erasures = new ReplayErasures(deps);
  erasures.start(options.erasureSweepMs);
  return {
    close: async () => {
      await erasures.stop();
      await worker.close();
    },
  };
}

/** ReplayControl for a query-api: queues the jobs, reads statuses and keyspaces from Redis. */
export function createRemoteReplayControl(options: ReplayJobsOptions): ReplayControl {
  const queue = new Queue(QUEUE, { connection: redisConnectionOptions(options.redisUrl), prefix: options.prefix });
  return replayControl({
    ...runnerDeps(options),
    run: async (id, target) => {
      await queue.add('replay', { target }, { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: 1 });
    },
    close: () => queue.close(),
  });
}
