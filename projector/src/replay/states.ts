import type { ReplayStatus } from '@pass/events';
import type { RedisConnection } from '../read-models/redis-admin';

/** A replay's status as kept: also where its erasures were last brought up to date (eraseMembersErasedAfter). */
export type StoredReplay = ReplayStatus & { erasuresTo?: string };

/**
 * Where the replays' statuses are kept: in the process for standalone, in Redis when the
 * projector process runs them and every query-api reads them.
 */
export interface ReplayStates {
  /** Ids of the replays kept, oldest first. */
  ids(): Promise<string[]>;
  get(id: string): Promise<StoredReplay | null>;
  create(status: StoredReplay): Promise<void>;
  /** Stores a newer status of a replay still kept; false when it was deleted meanwhile. */
  update(status: StoredReplay): Promise<boolean>;
  remove(id: string): Promise<void>;
}

export function memoryReplayStates(): ReplayStates {
  const states = new Map<string, StoredReplay>();
  return {
    ids: async () => [...states.keys()],
    get: async (id) => states.get(id) ?? null,
    create: async (status) => void states.set(status.id, status),
    update: async (status) => {
      if (!states.has(status.id)) return false;
      states.set(status.id, status);
      return true;
    },
    remove: async (id) => void states.delete(id),
  };
}

/**
 * Statuses in Redis under `root`: `<root>:<id>` (JSON, expiring `ttlMs` after the replay was
 * asked for) and `<root>:ids`, the ids by the time they were asked for.
 */
export function redisReplayStates(redis: RedisConnection, root: string, ttlMs: number): ReplayStates {
  const key = (id: string) => `${root}:${id}`;
  const index = `${root}:ids`;
  return {
    ids: async () => {
      const ids = await redis.zrange(index, 0, '-1');
      const kept: string[] = [];
      // An expired status takes its id out of the index too.
      for (const id of ids) {
        if ((await redis.exists(key(id))) === 1) kept.push(id);
        else await redis.zrem(index, id);
      }
      return kept;
    },
    get: async (id) => {
      const raw = await redis.get(key(id));
      return raw ? (JSON.parse(raw) as StoredReplay) : null;
    },
    create: async (status) => {
      await redis.set(key(status.id), JSON.stringify(status), 'PX', ttlMs);
      await redis.zadd(index, String(Date.parse(status.startedAt)), status.id);
    },
    update: async (status) => (await redis.set(key(status.id), JSON.stringify(status), 'KEEPTTL', 'XX')) === 'OK',
    remove: async (id) => {
      await redis.del(key(id));
      await redis.zrem(index, id);
    },
  };
}
