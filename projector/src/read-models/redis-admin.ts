import { Cluster, type Redis } from 'ioredis';

/**
 * A single Redis or a Redis Cluster. The read models' keys carry hash tags (redis/keys.ts), so
 * both run the same scripts; only walking every key differs (a cluster is scanned node by node).
 */
export type RedisConnection = Redis | Cluster;

/** The servers holding keys: the one Redis, or every master of a cluster (once it knows them). */
async function keyHolders(redis: RedisConnection): Promise<Redis[]> {
  if (!(redis instanceof Cluster)) return [redis];
  if (redis.status !== 'ready') {
    await new Promise<void>((ready, fail) => {
      const ended = () => fail(new Error('Redis Cluster connection ended'));
      redis.once('end', ended);
      redis.once('ready', () => {
        redis.off('end', ended);
        ready();
      });
    });
  }
  return redis.nodes('master');
}

/** Every key matching `match` (a SCAN pattern), in batches. */
export async function* scanKeys(redis: RedisConnection, match: string): AsyncGenerator<string[]> {
  for (const node of await keyHolders(redis)) {
    for await (const batch of node.scanStream({ match, count: 1000 })) {
      if ((batch as string[]).length > 0) yield batch as string[];
    }
  }
}

/**
 * UNLINK in one call on a single Redis or for keys sharing a hash tag; keys that may hash to
 * different slots of a cluster one by one (a cluster refuses a command across slots).
 */
export async function unlinkKeys(redis: RedisConnection, keys: string[], sameSlot = false): Promise<number> {
  if (keys.length === 0) return 0;
  if (!(redis instanceof Cluster) || sameSlot) return await redis.unlink(...keys);
  const counts = await Promise.all(keys.map((key) => redis.unlink(key)));
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Deletes every key under `root:` (tests, benches, dropped keyspaces). Never touches other keys. */
export async function deleteKeysUnder(redis: RedisConnection, root: string): Promise<number> {
  let deleted = 0;
  for await (const keys of scanKeys(redis, `${root}:*`)) deleted += await unlinkKeys(redis, keys);
  return deleted;
}
