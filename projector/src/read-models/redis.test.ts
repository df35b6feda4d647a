import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { Redis } from 'ioredis';
import { requireService, testRedisUrl } from '@pass/events/testing/services';
import { readModelStoreContract } from './contract';
import { createRedisReadModels } from './redis';
import { deleteKeysUnder } from './redis-admin';

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
});
