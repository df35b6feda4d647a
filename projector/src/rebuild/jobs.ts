import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { redisConnectionOptions } from '@pass/events/redis';
import type { Logger } from 'pino';
import type { EventStore, ProjectionStatus } from '@pass/events';
import type { ReadModelStore } from '../read-models/port';
import { lagOf } from '../subscription/lag';
import type { ProjectionControl } from './control';
import type { ProjectionRuntime, RebuildState } from './runtime';

/**
 * Distributed mode: query-api asks for a rebuild by queueing a BullMQ job; the projector
 * process, which owns the live projector, runs it; its progress is kept in Redis where any
 * query-api instance reads it.
 */

const QUEUE = 'projection-rebuild';
/** One rebuild at a time: a request while one is queued or running joins it. */
const JOB_ID = 'projection-rebuild';

export interface RebuildJobsOptions {
  redisUrl: string;
  /** BullMQ key prefix, e.g. `pass:bull`. */
  prefix: string;
  /** Where the rebuild state is kept, e.g. `pass:rm:rebuild`. */
  stateKey: string;
}

interface StoredState {
  rebuild: RebuildState;
  lastError: string | null;
}

/** The rebuild state the projector last stored (idle when none was). */
export async function readRebuildState(redis: Redis, stateKey: string): Promise<StoredState> {
  const raw = await redis.get(stateKey);
  return raw ? (JSON.parse(raw) as StoredState) : { rebuild: { state: 'idle', processed: 0, total: 0, startedAt: null }, lastError: null };
}

/** The runtime's `onRebuildState`: keeps the latest state in Redis. */
export function rebuildStateWriter(redis: Redis, stateKey: string, logger: Logger) {
  return (rebuild: RebuildState, lastError: string | null) => {
    const stored: StoredState = { rebuild, lastError };
    redis.set(stateKey, JSON.stringify(stored)).catch((error: unknown) => logger.warn({ err: error }, 'rebuild state not stored'));
  };
}

/** Runs queued rebuilds in the projector process. */
export function startRebuildWorker(options: RebuildJobsOptions & { runtime: ProjectionRuntime; logger: Logger }): { close(): Promise<void> } {
  const log = options.logger.child({ component: 'rebuild-worker' });
  const worker = new Worker(
    QUEUE,
    async () => {
      await options.runtime.runRebuild();
      const state = options.runtime.rebuildState();
      if (state.state === 'failed') throw new Error('Rebuild failed; see the projector log');
      return state;
    },
    { connection: redisConnectionOptions(options.redisUrl), prefix: options.prefix, concurrency: 1 },
  );
  worker.on('failed', (_job, error) => log.error({ err: error }, 'rebuild job failed'));
  worker.on('error', (error) => log.warn({ err: error }, 'rebuild worker connection problem'));
  return { close: () => worker.close() };
}

/** ProjectionControl for a query-api that does not host the projector. */
export function createRemoteProjectionControl(
  options: RebuildJobsOptions & {
    redis: Redis;
    readModels: ReadModelStore;
    eventStore: EventStore;
    /** The projectors' group as their lease and roster say (readLeadership). */
    leadership?: () => Promise<ProjectionStatus['leadership']>;
  },
): ProjectionControl & { close(): Promise<void> } {
  const queue = new Queue(QUEUE, { connection: redisConnectionOptions(options.redisUrl), prefix: options.prefix });
  const status = async (): Promise<ProjectionStatus> => {
    const [lag, state, leadership] = await Promise.all([lagOf(await options.readModels.active(), options.eventStore), readRebuildState(options.redis, options.stateKey), options.leadership?.()]);
    return { ...lag, lastError: state.lastError, rebuild: state.rebuild, ...(leadership ? { leadership } : {}) };
  };
  return {
    status,
    async rebuild() {
      await queue.add('rebuild', {}, { jobId: JOB_ID, removeOnComplete: true, removeOnFail: true, attempts: 1 });
      return status();
    },
    close: () => queue.close(),
  };
}
