import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@pass/events/test-support';
import { projectInto } from '../projections/apply';
import { generateEvents } from '../test-support/generate-events';
import { readModelStoreContract } from '../test-support/read-model-store-contract';
import { positioned, recordedDay } from '../test-support/recorded-events';
import { OwnRedisCluster, requireRedisServer } from '../test-support/redis-cluster';
import { WatchedCheckpoints } from './change-watch';
import { createMemoryReadModels } from './memory';
import { createRedisReadModels } from './redis';
import { deleteKeysUnder } from './redis-admin';
import { parseQuery } from './search';

const installed = requireRedisServer('projector: Redis read models on a Redis Cluster (redis-server in cluster mode)');

/**
 * The Redis read models on a real three-master Redis Cluster started by the suite: the same
 * scripts and transactions as on a single Redis, which a cluster only runs when every key they
 * touch hashes to one slot.
 */
describe.skipIf(!installed)('Redis read models on a Redis Cluster', () => {
  const cluster = new OwnRedisCluster(3);
  const clients: Cluster[] = [];
  const connect = () => {
    const client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 1 } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    await cluster.start();
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await cluster.close();
  });

  readModelStoreContract('redis cluster', async () => {
    const redis = connect();
    const root = `test:rm:${randomUUID()}`;
    return {
      store: createRedisReadModels({ redis, root }),
      close: async () => {
        await deleteKeysUnder(redis, root);
      },
    };
  });

  it('spreads keyspaces over the masters: each keyspace on one slot, the active pointer on its own', async () => {
    const redis = connect();
    const root = `test:rm:${randomUUID()}`;
    const store = createRedisReadModels({ redis, root });
    for (const id of ['ks0', 'ksa', 'ksb', 'ksc', 'ksd']) {
      await store.keyspace(id).apply({ expectedCheckpoint: null, checkpoint: '1/0', writes: [{ op: 'country', country: 'Peru', delta: 1 }] });
    }
    expect(await store.list()).toEqual(['ks0', 'ksa', 'ksb', 'ksc', 'ksd']);
    await store.activate('ksa');
    await store.drop('ks0');
    expect(await store.list()).toEqual(['ksa', 'ksb', 'ksc', 'ksd']);
    expect((await store.keyspace('ks0').countries(5)).distinct).toBe(0);
    expect((await (await store.active()).countries(5)).top).toEqual([{ country: 'Peru', users: 1 }]);
    await deleteKeysUnder(redis, root);
    expect(await store.list()).toEqual([]);
  });

  it('projects the same events into the same read models as memory, and answers every query alike', async () => {
    const redis = connect();
    const root = `test:rm:${randomUUID()}`;
    try {
      const events = positioned([...recordedDay, ...generateEvents({ users: 600, seed: 11 })]);
      const memory = await createMemoryReadModels().active();
      const inCluster = await createRedisReadModels({ redis, root }).active();
      for (let i = 0; i < events.length; i += 250) {
        const chunk = events.slice(i, i + 250);
        await projectInto(memory, chunk);
        await projectInto(inCluster, chunk);
      }
      expect(await inCluster.dump()).toEqual(await memory.dump());
      for (const query of [
        { membersOnly: true, sets: [], offset: 0, limit: 50 },
        { membersOnly: false, sets: [], offset: 550, limit: 100 },
        { membersOnly: true, sets: ['ix:peru' as const], offset: 0, limit: 20 },
        { membersOnly: true, sets: ['ix:ana' as const, 'ix:peru' as const], offset: 0, limit: 50 },
        { membersOnly: true, sets: ['ix:states' as const, 'ix:united' as const, 'ix:kim' as const], offset: 0, limit: 50 },
        { membersOnly: false, sets: ['ix:mia' as const, 'ix:01/01/2026' as const], offset: 0, limit: 50 },
        { membersOnly: false, sets: [], email: 'member42@example.com', offset: 0, limit: 50 },
        // A registry word: the union of the prefix sets' and the masked e-mail sets' matches, in scratch keys of the keyspace's slot.
        { membersOnly: false, ...parseQuery('co', true), offset: 20, limit: 50 },
      ]) {
        expect(await inCluster.users(query), JSON.stringify(query)).toEqual(await memory.users(query));
      }
      expect(await inCluster.countries(5)).toEqual(await memory.countries(5));
      expect(await inCluster.chat(50)).toEqual(await memory.chat(50));
      expect(await inCluster.posts()).toEqual(await memory.posts());
    } finally {
      await deleteKeysUnder(redis, root);
    }
  }, 60_000);

  it('a reader hears the batches the projector applies (announced from the apply script)', async () => {
    const redis = connect();
    const root = `test:rm:${randomUUID()}`;
    const watch = await WatchedCheckpoints.watch(redis, root, pino({ level: 'silent' }));
    try {
      expect(watch.heard).toBe(true);
      const written = await createRedisReadModels({ redis: connect(), root }).active();
      await written.apply({ expectedCheckpoint: null, checkpoint: '1/0', writes: [{ op: 'country', country: 'Peru', delta: 1 }] });
      await eventually(() => expect(watch.announcements).toBe(1));
      const read = await createRedisReadModels({ redis, root }).active();
      expect(await watch.checkpointOf(read)).toBe('1/0');
      await written.apply({ expectedCheckpoint: '1/0', checkpoint: '2/0', writes: [] });
      await eventually(() => expect(watch.announcements).toBe(2));
      expect(await watch.checkpointOf(read)).toBe('2/0');
    } finally {
      await watch.close();
      await deleteKeysUnder(redis, root);
    }
  });
});
