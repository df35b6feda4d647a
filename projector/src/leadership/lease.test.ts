import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createRedisReadModels } from '../read-models/redis';
import { FencedWriteError, type Fencing } from '../read-models/redis/fencing';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { emptyMain, type WriteBatch } from '../read-models/types';
import { LeaseLostError, RedisLease } from './lease';

const reachable = await requireService('projector: lease and fencing (Redis)', testRedisUrl(), 6379);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A batch that sets the figures' message count, after `expected`. */
const batch = (expected: string | null, checkpoint: string, messages: number): WriteBatch => ({
  expectedCheckpoint: expected,
  checkpoint,
  writes: [{ op: 'main', main: { ...emptyMain(), globalMessages: messages } }],
});

describe.skipIf(!reachable)('projector lease and fencing', () => {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  const roots: string[] = [];
  const newRoot = () => {
    const root = `test:lease:${randomUUID()}`;
    roots.push(root);
    return root;
  };
  afterAll(async () => {
    for (const root of roots) await deleteKeysUnder(redis, root);
    redis.disconnect();
  });

  it('is held by one instance at a time, and taken by another with a higher epoch once it runs out', async () => {
    const root = newRoot();
    const a = new RedisLease(redis, root, 'a', 400);
    const b = new RedisLease(redis, root, 'b', 400);
    expect(await a.renew()).toMatchObject({ held: true, holder: 'a', epoch: 1 });
    expect(await b.renew()).toMatchObject({ held: false, holder: 'a', epoch: 1 });
    expect(await a.renew()).toMatchObject({ held: true, holder: 'a', epoch: 1 });
    await sleep(450);
    expect(a.holds()).toBe(false);
    expect(() => a.token()).toThrow(LeaseLostError);
    expect(await b.renew()).toMatchObject({ held: true, holder: 'b', epoch: 2 });
    expect(await a.renew()).toMatchObject({ held: false, holder: 'b', epoch: 2 });
    await b.release();
    expect(await a.renew()).toMatchObject({ held: true, holder: 'a', epoch: 3 });
  });

  it("refuses every write of a leader whose epoch a newer leader's fence passed, and keeps the newer one's", async () => {
    const root = newRoot();
    const lease = new RedisLease(redis, root, 'new', 5_000);
    await lease.renew();
    await lease.renew();
    // The deposed leader still believes it holds epoch 0 (paused past its lease, then woken).
    const stale: Fencing = { token: () => 0 };
    const older = createRedisReadModels({ redis, root, fencing: stale });
    const newer = createRedisReadModels({ redis, root, fencing: lease });
    const id = await newer.activeId();
    expect(await older.keyspace(id).apply(batch(null, '1', 1))).toBe('applied');
    await newer.raiseFence(id);
    await expect(older.keyspace(id).apply(batch('1', '2', 99))).rejects.toThrow(FencedWriteError);
    await expect(older.activate('ks-stale')).rejects.toThrow(FencedWriteError);
    expect(await newer.keyspace(id).apply(batch('1', '2', 2))).toBe('applied');
    expect(await newer.keyspace(id).checkpoint()).toBe('2');
    expect((await newer.keyspace(id).main()).globalMessages).toBe(2);
    expect(await newer.activeId()).toBe(id);
  });

  it('keeps the fence of a dropped keyspace, so a deposed leader cannot bring its keys back', async () => {
    const root = newRoot();
    const lease = new RedisLease(redis, root, 'new', 5_000);
    await lease.renew();
    await lease.renew();
    const newer = createRedisReadModels({ redis, root, fencing: lease });
    const older = createRedisReadModels({ redis, root, fencing: { token: () => 0 } });
    await newer.activeId();
    expect(await older.keyspace('ks-left').apply(batch(null, '1', 1))).toBe('applied');
    await newer.drop('ks-left');
    await expect(older.keyspace('ks-left').apply(batch(null, '1', 1))).rejects.toThrow(FencedWriteError);
    expect(await newer.list()).not.toContain('ks-left');
  });
});
