import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { eventually } from '@pass/events/test-support';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { WatchedCheckpoints } from './change-watch';
import type { Keyspace } from './port';
import { createRedisReadModels } from './redis';
import { keyspacePrefix } from './redis/keys';
import { deleteKeysUnder } from './redis-admin';

/** A keyspace whose checkpoint reads can be counted and held open. */
function countedKeyspace(id = 'ks-1') {
  let checkpoint: string | null = '10/0';
  let hold: Promise<void> | undefined;
  const ks = {
    id,
    reads: 0,
    set: (value: string) => (checkpoint = value),
    holdNextRead: () => {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return release;
    },
    checkpoint: async () => {
      ks.reads++;
      const answer = checkpoint;
      if (hold) await hold.finally(() => (hold = undefined));
      return answer;
    },
  };
  return ks;
}
const asKeyspace = (ks: ReturnType<typeof countedKeyspace>) => ks as unknown as Keyspace;

function heardWatch(): WatchedCheckpoints {
  const watch = new WatchedCheckpoints();
  watch.heard = true;
  return watch;
}

describe('WatchedCheckpoints', () => {
  it('given announcements are heard, when a checkpoint is asked again, then it comes from memory', async () => {
    const watch = heardWatch();
    const ks = countedKeyspace();
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('10/0');
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('10/0');
    expect(ks.reads).toBe(1);
  });

  it('given a kept checkpoint, when its keyspace is announced, then the next call reads the new one', async () => {
    const watch = heardWatch();
    const ks = countedKeyspace();
    await watch.checkpointOf(asKeyspace(ks));
    ks.set('11/0');
    watch.changed('another-keyspace');
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('10/0');
    watch.changed(ks.id);
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('11/0');
    expect(ks.reads).toBe(2);
  });

  it('given a read in flight, when its keyspace is announced meanwhile, then its answer is returned but not kept', async () => {
    const watch = heardWatch();
    const ks = countedKeyspace();
    const release = ks.holdNextRead();
    const inFlight = watch.checkpointOf(asKeyspace(ks));
    ks.set('11/0');
    watch.changed(ks.id);
    release();
    expect(await inFlight).toBe('10/0');
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('11/0');
    expect(ks.reads).toBe(2);
  });

  it('given announcements are not heard, then every call reads the store and nothing is kept', async () => {
    const watch = heardWatch();
    const ks = countedKeyspace();
    await watch.checkpointOf(asKeyspace(ks));
    watch.heard = false;
    ks.set('12/0');
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('12/0');
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('12/0');
    expect(ks.reads).toBe(3);
    // Heard again: nothing kept from before, so the first call reads.
    watch.heard = true;
    ks.set('13/0');
    expect(await watch.checkpointOf(asKeyspace(ks))).toBe('13/0');
    expect(ks.reads).toBe(4);
  });

  it('given a read in flight, when the subscription drops meanwhile, then its answer is not kept', async () => {
    const watch = heardWatch();
    const ks = countedKeyspace();
    const release = ks.holdNextRead();
    const inFlight = watch.checkpointOf(asKeyspace(ks));
    watch.heard = false;
    watch.heard = true;
    release();
    await inFlight;
    await watch.checkpointOf(asKeyspace(ks));
    expect(ks.reads).toBe(2);
  });
});

const reachable = await requireService('projector: read-model change announcements (Redis)', testRedisUrl(), 6379);
const silent = pino({ level: 'silent' });

describe.skipIf(!reachable)('WatchedCheckpoints on Redis', () => {
  async function withStore(test: (ctx: { redis: Redis; root: string; watch: WatchedCheckpoints }) => Promise<void>) {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    const root = `test:rm:${randomUUID()}`;
    const watch = await WatchedCheckpoints.watch(redis, root, silent);
    try {
      await test({ redis, root, watch });
    } finally {
      await watch.close();
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    }
  }

  it('hears every batch the projector applies: a reader sees it without asking Redis in between', async () => {
    await withStore(async ({ redis, root, watch }) => {
      expect(watch.heard).toBe(true);
      // The projector's store and the reader's store are separate connections, as in separate processes.
      const projectorSide = createRedisReadModels({ redis: redis.duplicate(), root });
      const written = await projectorSide.active();
      const read = await createRedisReadModels({ redis, root }).active();
      try {
        const applied = async (expected: string | null, checkpoint: string) => {
          const heard = watch.announcements;
          await written.apply({ expectedCheckpoint: expected, checkpoint, writes: [{ op: 'country', country: 'Peru', delta: 1 }] });
          await eventually(() => expect(watch.announcements).toBe(heard + 1));
        };
        await applied(null, '1/0');
        const reads = watch.reads;
        for (let i = 0; i < 5; i++) expect(await watch.checkpointOf(read)).toBe('1/0');
        expect(watch.reads).toBe(reads + 1);

        await applied('1/0', '2/0');
        for (let i = 0; i < 5; i++) expect(await watch.checkpointOf(read)).toBe('2/0');
        expect(watch.reads).toBe(reads + 2);
      } finally {
        await projectorSide.close();
      }
    });
  });

  it('after losing its subscriber, reads Redis on every call (a batch applied meanwhile is seen), and keeps again once resubscribed', async () => {
    await withStore(async ({ redis, root, watch }) => {
      const ks = await createRedisReadModels({ redis, root }).active();
      await ks.apply({ expectedCheckpoint: null, checkpoint: '1/0', writes: [] });
      await eventually(() => expect(watch.announcements).toBe(1));
      expect(await watch.checkpointOf(ks)).toBe('1/0');
      const kept = watch.reads;
      expect(await watch.checkpointOf(ks)).toBe('1/0');
      expect(watch.reads).toBe(kept);

      // Redis restarting or the network failing: announcements published meanwhile are lost.
      const killedId = watch.clientId!;
      await redis.client('KILL', 'ID', String(killedId));
      await eventually(() => expect(watch.heard && watch.clientId === killedId).toBe(false));
      // A write nobody announces to this reader (its announcement is lost while it is away).
      await redis.set(`${keyspacePrefix(root, ks.id)}checkpoint`, '7/0');
      await eventually(async () => expect(await watch.checkpointOf(ks)).toBe('7/0'));

      await eventually(() => expect(watch.heard && watch.clientId !== killedId).toBe(true));
      const reads = watch.reads;
      expect(await watch.checkpointOf(ks)).toBe('7/0');
      expect(await watch.checkpointOf(ks)).toBe('7/0');
      expect(watch.reads).toBe(reads + 1);
    });
  });

  it('a start with Redis unreachable goes on, reading every time', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    const watch = await WatchedCheckpoints.watch(unreachable, 'test:rm:unreachable', silent);
    try {
      expect(watch.heard).toBe(false);
      const ks = countedKeyspace();
      await watch.checkpointOf(asKeyspace(ks));
      await watch.checkpointOf(asKeyspace(ks));
      expect(ks.reads).toBe(2);
    } finally {
      await watch.close();
      unreachable.disconnect();
    }
  });
});
