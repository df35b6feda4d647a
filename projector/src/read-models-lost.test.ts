import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { projectInto } from './projections/apply';
import { positioned } from './test-support/recorded-events';
import { createMemoryReadModels } from './read-models/memory';
import { createRedisReadModels } from './read-models/redis';
import { deleteKeysUnder } from './read-models/redis-admin';
import type { ReadModelDump } from './read-models/types';
import { createProjectionRuntime, type ProjectionRuntime } from './rebuild/runtime';
import { appendEvents } from './test-support/append';
import { generateEvents } from './test-support/generate-events';

const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
const reachable = await requireService('projector: read models lost while idle (Redis)', testRedisUrl(), 6379);

/**
 * Redis restarted without persistence while the projector was idle: every key under the root is
 * gone (here deleted, which is what readers and the projector see of an empty restart), and no
 * new event arrives. The projector must notice by itself and re-project, and readers must find
 * the read models again, without waiting for an event.
 */
describe.skipIf(!reachable)('read models lost under an idle projector (Redis)', () => {
  let store: EventStore | undefined;
  let runtime: ProjectionRuntime | undefined;
  let redis: Redis | undefined;
  let root = '';
  afterEach(async () => {
    await runtime?.stop();
    await store?.close();
    if (redis) await deleteKeysUnder(redis, root);
    redis?.disconnect();
  });

  /** Everything under the root gone in one step, as a restart without persistence does. */
  const wipe = async () => {
    const keys: string[] = [];
    for await (const batch of redis!.scanStream({ match: `${root}:*`, count: 1000 })) keys.push(...(batch as string[]));
    // One UNLINK: deleting in several steps would race with a projector that already noticed.
    await redis!.unlink(...keys);
  };

  const setUp = async () => {
    store = await openPgliteEventStore();
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    root = `test:rm:${randomUUID()}`;
    const events = [...generateEvents({ users: 60, seed: 5 })];
    await appendEvents(store, events);
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned(events));
    const want = await direct.dump();
    runtime = createProjectionRuntime({ eventStore: store, readModels: createRedisReadModels({ redis, root }), logger, checkIntervalMs: 100, dropDelayMs: 0 });
    await runtime.start();
    await runtime.live().settled();
    // A reader in another process: its own store object, caching the active keyspace briefly.
    const reader = createRedisReadModels({ redis, root, activeCacheMs: 50 });
    return { want, reader, runtime };
  };
  // Positions are compared through the lag; the rest must be what a direct projection gives.
  const comparable = (d: ReadModelDump) => ({ ...d, checkpoint: null });
  const readersSee = (reader: ReturnType<typeof createRedisReadModels>) => async () => comparable(await (await reader.active()).dump());

  it('re-projects from 0 with no new event, and readers see the read models again', async () => {
    const { want, reader } = await setUp();
    expect(comparable(await (await reader.active()).dump())).toEqual(comparable(want));

    await wipe();
    // With no event appended, the projector notices and fills it again.
    // Whole again, search index included: a catch-up builds it after its last batch is stored.
    await expect.poll(readersSee(reader), { timeout: 10_000, interval: 100 }).toEqual(comparable(want));
    expect((await runtime!.status()).lagEvents).toBe(0);
  });

  it('after an admin rebuild (readers on a keyspace other than the first), points readers back at it', async () => {
    const { want, reader } = await setUp();
    await runtime!.runRebuild();
    const rebuilt = runtime!.live().keyspace.id;
    await expect.poll(async () => (await reader.activeId()) === rebuilt, { timeout: 5_000 }).toBe(true);

    await wipe();
    await expect
      .poll(async () => [await reader.activeId(), (await (await reader.active()).main()).userSeq], { timeout: 10_000, interval: 100 })
      .toEqual([rebuilt, want.main.userSeq]);
    await expect.poll(readersSee(reader), { timeout: 10_000, interval: 100 }).toEqual(comparable(want));
  });
});
