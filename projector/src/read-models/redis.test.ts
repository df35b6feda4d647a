import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { requireService, testRedisUrl } from '@pass/events/testing/services';
import { readModelStoreContract } from './contract';
import { createRedisReadModels } from './redis';
import { deleteKeysUnder } from './redis-admin';
import { rankKey } from './search';
import type { ReadModelWrite } from './types';

const reachable = await requireService('projector: ReadModelStore contract (Redis)', testRedisUrl(), 6379);

describe.skipIf(!reachable)('Redis adapter', () => {
  readModelStoreContract('redis', async () => {
    const redis = new Redis(testRedisUrl(), { lazyConnect: false, maxRetriesPerRequest: 1 });
    const root = `test:rm:${randomUUID()}`;
    const store = createRedisReadModels({ redis, root });
    return {
      store,
      close: async () => {
        await deleteKeysUnder(redis, root);
        redis.disconnect();
      },
    };
  });

  it('answers multi-word searches from the word sets on a keyspace projected before pair sets existed', async () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    const root = `test:rm:${randomUUID()}`;
    try {
      const ks = await createRedisReadModels({ redis, root }).active();
      // Rows indexed the old way: word sets, no pair sets.
      const writes: ReadModelWrite[] = [1, 2, 3].flatMap((seq) => {
        const key = rankKey(seq);
        const row = { userId: `u${seq}`, key, email: '', priority: '', points: 0, passes: seq, buyed: 0, fullname: 'Ana', country: 'Peru', link: '', image: null, message: '', createdAt: '', updatedAt: '' } as const;
        return [
          { op: 'user', row },
          ...(['users', 'ix:ana', 'ix:peru'] as const).map((set) => ({ op: 'zadd' as const, set, member: key, score: -seq })),
        ];
      });
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes });
      const marker = `${root}:${ks.id}:pairs`;
      expect(await redis.exists(marker)).toBe(1);
      const search = () => ks.users({ membersOnly: true, sets: ['ix:ana', 'ix:peru'], offset: 0, limit: 10 });
      // A keyspace started by this code trusts its (here missing) pair sets…
      expect((await search()).total).toBe(0);
      // …one from before has no marker and intersects the words.
      await redis.del(marker);
      const page = await search();
      expect([page.total, page.rows.map((r) => [r.rank, r.row.userId])]).toEqual([3, [[1, 'u3'], [2, 'u2'], [3, 'u1']]]);
    } finally {
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    }
  });
});
