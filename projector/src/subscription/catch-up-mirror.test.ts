import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { projectInto } from '../projections/apply';
import { createMemoryReadModels } from '../read-models/memory';
import type { Keyspace } from '../read-models/port';
import { createRedisReadModels } from '../read-models/redis';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { parseQuery } from '../read-models/search';
import type { WriteBatch } from '../read-models/types';
import { generateEvents } from '../test-support/generate-events';
import { positioned } from '../test-support/recorded-events';
import { CatchUpMirror } from './catch-up-mirror';

const redisReachable = await requireService('projector: deferred index build into Redis', testRedisUrl(), 6379);
const redis = redisReachable ? new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 }) : undefined;
const root = `test:rm:${randomUUID()}`;
afterAll(async () => {
  if (!redis) return;
  await deleteKeysUnder(redis, root);
  redis.disconnect();
});

/** One apply of a keyspace, on a clock that ticks at every start and end. */
interface TimedApply {
  marksComplete: boolean;
  started: number;
  ended?: number;
}

/** The keyspace, with each apply's start and end in one timeline (writes may overlap now). */
function timed(keyspace: Keyspace): { keyspace: Keyspace; applies: TimedApply[] } {
  const applies: TimedApply[] = [];
  let clock = 0;
  const apply = async (batch: WriteBatch) => {
    const entry: TimedApply = { marksComplete: batch.writes.some((w) => w.op === 'indexState' && w.state === 'complete'), started: clock++ };
    applies.push(entry);
    const result = await keyspace.apply(batch);
    entry.ended = clock++;
    return result;
  };
  return { keyspace: new Proxy(keyspace, { get: (target, name) => (name === 'apply' ? apply : Reflect.get(target, name)) }), applies };
}

const stores: Array<[string, boolean, () => Promise<Keyspace>]> = [
  ['memory', true, async () => await createMemoryReadModels().active()],
  ['redis', redisReachable, async () => await createRedisReadModels({ redis: redis!, root: `${root}:${randomUUID()}` }).active()],
];

describe.each(stores)('a deferred search index built in many writes (%s)', (_name, available, open) => {
  it.skipIf(!available)('leaves the read models and search results of a projection with the index, and is marked complete only once every other write is stored', async () => {
    const events = positioned([...generateEvents({ users: 600, seed: 21 })]);
    const { keyspace, applies } = timed(await open());
    const mirror = new CatchUpMirror(keyspace, null, 'deferred', 40);
    for (let i = 0; i < events.length; i += 500) {
      const projected = await mirror.project(events.slice(i, i + 500));
      if (projected.batch) expect(await keyspace.apply(projected.batch)).toBe('applied');
      mirror.windowStored();
    }
    const catchUpApplies = applies.length;
    expect(await keyspace.indexState()).toBe('deferred');
    expect(await keyspace.users({ membersOnly: false, sets: parseQuery('Peru', false).sets, offset: 0, limit: 5 })).toMatchObject({ total: 0 });

    const indexed = await mirror.buildIndex();

    const direct = await createMemoryReadModels().active();
    await projectInto(direct, events);
    const rows = (await direct.dump()).rows.length;
    expect(indexed).toBe(rows);
    expect(await keyspace.indexState()).toBe('complete');
    expect({ ...(await keyspace.dump()), checkpoint: null }).toEqual({ ...(await direct.dump()), checkpoint: null });
    for (const text of ['Peru', 'an', 'mia ok']) {
      const query = { membersOnly: false, sets: parseQuery(text, false).sets, offset: 0, limit: 20 };
      expect(await keyspace.users(query)).toEqual(await direct.users(query));
    }
    const build = applies.slice(catchUpApplies);
    // The last write (marking the index complete) carries the rows left over, here none.
    expect(build.length).toBe(Math.floor(rows / 40) + 1);
    const complete = build.filter((a) => a.marksComplete);
    expect(complete).toHaveLength(1);
    for (const other of build) if (other !== complete[0]) expect(other.ended!).toBeLessThan(complete[0]!.started);
  });
});

describe('a deferred index build that fails part-way', () => {
  it('reports the failure only once the write still in flight has landed, so a resumed build never meets it late', async () => {
    const events = positioned([...generateEvents({ users: 200, seed: 4 })]);
    const keyspace = await createMemoryReadModels().active();
    const mirror = new CatchUpMirror(keyspace, null, 'deferred', 40);
    const projected = await mirror.project(events);
    expect(await keyspace.apply(projected.batch!)).toBe('applied');
    mirror.windowStored();

    // The build's first write is refused (the checkpoint moved) while its second is still running.
    const timeline: string[] = [];
    let builds = 0;
    const slow = new Proxy(keyspace, {
      get: (target, name) =>
        name === 'apply'
          ? async (batch: WriteBatch) => {
              const n = ++builds;
              await new Promise((r) => setTimeout(r, n === 1 ? 20 : 60));
              timeline.push(`write ${n} ended`);
              return n === 1 ? ('stale' as const) : await target.apply(batch);
            }
          : Reflect.get(target, name),
    });
    // A build resumed from what is stored (as after a restart), in writes of 40 rows.
    const failing = new CatchUpMirror(slow, projected.batch!.checkpoint, 'deferred', 40);

    const outcome = await failing.buildIndex().then(
      () => 'built',
      (error: Error) => error.name,
    );
    timeline.push(`build ${outcome}`);

    expect(timeline).toEqual(['write 1 ended', 'write 2 ended', 'build ConcurrentProjectionError']);
    expect(await keyspace.indexState()).not.toBe('complete');
  });
});

