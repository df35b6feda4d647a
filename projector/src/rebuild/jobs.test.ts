import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createRedisReadModels } from '../read-models/redis';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { appendEvents } from '../test-support/append';
import { generateEvents } from '../test-support/generate-events';
import { createRemoteProjectionControl, rebuildStateWriter, startRebuildWorker } from './jobs';
import { createProjectionRuntime } from './runtime';

const reachable = await requireService('projector: rebuild as a BullMQ job', testRedisUrl(), 6379);

describe.skipIf(!reachable)('rebuild requested through BullMQ (distributed mode)', () => {
  const logger = pino({ level: 'silent' });
  const root = `test:rm:${randomUUID()}`;
  const bullPrefix = `test:bull:${randomUUID()}`;
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const closers: Array<() => Promise<unknown>> = [];
  let store: EventStore;

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await deleteKeysUnder(redis, root);
    await deleteKeysUnder(redis, bullPrefix);
    redis.disconnect();
  });

  it('runs in the projector process and reports progress to query-api', async () => {
    store = await openPgliteEventStore();
    closers.push(() => store.close());
    await appendEvents(store, generateEvents({ users: 200, seed: 5 }));
    const options = { redisUrl: testRedisUrl(), prefix: bullPrefix, stateKey: `${root}:rebuild` };

    // Projector process: live projector, rebuild worker.
    const projectorSide = createRedisReadModels({ redis, root, activeCacheMs: 0 });
    const runtime = createProjectionRuntime({ eventStore: store, readModels: projectorSide, logger, dropDelayMs: 10, onRebuildState: rebuildStateWriter(redis, options.stateKey, logger) });
    await runtime.start();
    closers.push(() => runtime.stop());
    await runtime.live().settled();
    const worker = startRebuildWorker({ ...options, runtime, logger });
    closers.push(() => worker.close());

    // query-api process: its own view of the read models and the remote control.
    const queryRedis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    closers.push(async () => queryRedis.disconnect());
    const querySide = createRedisReadModels({ redis: queryRedis, root, activeCacheMs: 0 });
    const control = createRemoteProjectionControl({ ...options, redis: queryRedis, readModels: querySide, eventStore: store });
    closers.push(() => control.close());

    const before = await querySide.activeId();
    const idle = await control.status();
    expect(idle).toMatchObject({ lagEvents: 0, rebuild: { state: 'idle' } });
    await control.rebuild();
    await control.rebuild(); // joins the queued or running one

    await expect.poll(async () => querySide.activeId(), { timeout: 20_000, interval: 100 }).not.toBe(before);
    await expect.poll(async () => (await control.status()).rebuild.state, { timeout: 5_000 }).toBe('idle');
    const status = await control.status();
    expect(status.rebuild.processed).toBe(status.rebuild.total);
    expect(status.rebuild.processed).toBeGreaterThan(800);
    expect(status).toMatchObject({ lagEvents: 0, lastError: null });
    expect((await (await querySide.active()).main()).userSeq).toBe(200);
  });
});
