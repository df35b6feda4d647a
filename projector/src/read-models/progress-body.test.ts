import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProgressDay } from '@pass/events';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createMemoryReadModels } from './memory';
import { progressBodyBuilder } from './progress-body';
import { createRedisReadModels } from './redis';
import { deleteKeysUnder } from './redis-admin';
import type { ReadModelStore } from './port';
import type { ReadModelWrite } from './types';
import { readProgressView } from './views';

const day = (date: string, passesTaken: number): ProgressDay => ({ date, passesTaken, members: passesTaken, fundsRaised: passesTaken * 1.5, freePoints: 2, pointsBought: 0, chatMessages: 1 });

/**
 * After every batch, the body built from the previous one plus the last day must be the very
 * bytes a whole read gives: a batch rewriting the last day, one adding days after a quiet gap,
 * an edit of the start date, and readers moved to another keyspace.
 */
async function everyBuildEqualsAWholeRead(store: ReadModelStore): Promise<void> {
  const body = progressBodyBuilder();
  let checkpoint: string | null = null;
  const apply = async (id: string, writes: ReadModelWrite[]) => {
    const ks = store.keyspace(id);
    const next = `${Number(checkpoint?.split('/')[0] ?? 0) + 1}/0`;
    expect(await ks.apply({ expectedCheckpoint: id === 'second' ? await ks.checkpoint() : checkpoint, checkpoint: next, writes })).toBe('applied');
    if (id !== 'second') checkpoint = next;
    const built = (await body(ks)).bytes.toString();
    expect(JSON.parse(built)).toEqual(await readProgressView(ks));
    expect(built).toBe(JSON.stringify(await readProgressView(ks)));
    return JSON.parse(built) as { startDate: string; days: ProgressDay[] };
  };
  const first = store.keyspace('first');
  expect((await body(first)).bytes.toString()).toBe(JSON.stringify(await readProgressView(first)));
  await apply('first', [{ op: 'progressDay', day: day('2026-11-01', 1) }]);
  await apply('first', [{ op: 'progressDay', day: day('2026-11-01', 2) }]);
  await apply('first', [{ op: 'progressDay', day: day('2026-11-02', 3) }]);
  // The last day rewritten, several times: the earlier days' JSON is reused.
  for (let passes = 4; passes < 8; passes++) await apply('first', [{ op: 'progressDay', day: day('2026-11-02', passes) }]);
  // Two quiet days, then a new day; then that day again, with the quiet ones filled from the day before.
  const afterGap = await apply('first', [{ op: 'progressDay', day: day('2026-11-05', 9) }]);
  expect(afterGap.days.map((d) => [d.date, d.passesTaken])).toEqual([['2026-11-01', 2], ['2026-11-02', 7], ['2026-11-03', 7], ['2026-11-04', 7], ['2026-11-05', 9]]);
  const rewritten = await apply('first', [{ op: 'progressDay', day: day('2026-11-05', 10) }]);
  expect(rewritten.days.at(-1)?.passesTaken).toBe(10);
  expect(rewritten.days.at(-2)).toEqual({ ...day('2026-11-02', 7), date: '2026-11-04', freePoints: 0, chatMessages: 0 });
  // The start date is read on every build.
  const edited = await apply('first', [{ op: 'main', main: { ...(await first.main()), startDate: '2026-10-30T00:00:00.000Z' } }]);
  expect(edited.startDate).toBe('2026-10-30T00:00:00.000Z');
  // Another keyspace with as many days and the same last date, but other figures.
  await apply('second', [{ op: 'progressDay', day: day('2026-10-01', 5) }, { op: 'progressDay', day: day('2026-10-02', 6) }, { op: 'progressDay', day: day('2026-11-05', 11) }]);
  expect((await body(first)).bytes.toString()).toBe(JSON.stringify(await readProgressView(first)));
}

describe('the GET /api/progress body after each batch', () => {
  it('equals a whole read of the memory read models', async () => {
    await everyBuildEqualsAWholeRead(createMemoryReadModels());
  });

  describe('Redis', async () => {
    const reachable = await requireService('projector: progress body (Redis)', testRedisUrl(), 6379);
    const redis = reachable ? new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 }) : undefined;
    const root = `progress-body-${randomUUID()}`;
    afterAll(async () => {
      if (!redis) return;
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    });
    it.skipIf(!reachable)('equals a whole read of the Redis read models', async () => {
      await everyBuildEqualsAWholeRead(createRedisReadModels({ redis: redis!, root }));
    });
  });
});
