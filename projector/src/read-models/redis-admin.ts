import type { Redis } from 'ioredis';

/** Deletes every key under `root:` (tests, benches, dropped keyspaces). Never touches other keys. */
export async function deleteKeysUnder(redis: Redis, root: string): Promise<number> {
  let deleted = 0;
  for await (const batch of redis.scanStream({ match: `${root}:*`, count: 1000 })) {
    const keys = batch as string[];
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  }
  return deleted;
}
