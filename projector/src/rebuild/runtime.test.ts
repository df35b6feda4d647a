import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { broadcastPublisher } from '../live/publisher';
import { projectInto } from '../projections/apply';
import { positioned } from '../test-support/recorded-events';
import { createMemoryReadModels } from '../read-models/memory';
import { BUILD_KEYSPACE_PREFIX, type ReadModelStore } from '../read-models/port';
import { createRedisReadModels } from '../read-models/redis';
import { INDEX_MARKER, keyspacePrefix } from '../read-models/redis/keys';
import { parseQuery } from '../read-models/search';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { appendEvents } from '../test-support/append';
import { generateEvents } from '../test-support/generate-events';
import { createProjectionRuntime, type ProjectionRuntime } from './runtime';

const logger = pino({ level: 'silent' });
const redisReachable = await requireService('projector: rebuild into Redis', testRedisUrl(), 6379);

const adapters: Array<[string, boolean, () => { readModels: ReadModelStore; cleanup: () => Promise<void> }]> = [
  ['memory', true, () => ({ readModels: createMemoryReadModels(), cleanup: async () => {} })],
  [
    'redis',
    redisReachable,
    () => {
      const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
      const root = `test:rm:${randomUUID()}`;
      return {
        readModels: createRedisReadModels({ redis, root, activeCacheMs: 0 }),
        cleanup: async () => {
          await deleteKeysUnder(redis, root);
          redis.disconnect();
        },
      };
    },
  ],
];

describe.each(adapters)('projection rebuild (%s)', (_name, available, open) => {
  let store: EventStore | undefined;
  let runtime: ProjectionRuntime | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await runtime?.stop();
    await store?.close();
    await cleanup?.();
  });
  /** A fresh in-memory store and this adapter's read models, both removed after the test. */
  const openSite = async (): Promise<{ store: EventStore; readModels: ReadModelStore }> => {
    const opened = open();
    cleanup = opened.cleanup;
    store = await openPgliteEventStore();
    return { store, readModels: opened.readModels };
  };

  it.skipIf(!available)('fills a fresh keyspace from 0 while readers keep the old one, then switches them over in one step', async () => {
    const { store, readModels } = await openSite();
    const events = [...generateEvents({ users: 400, seed: 11 })];
    const cut = Math.floor(events.length * 0.8);
    await appendEvents(store, events.slice(0, cut));
    const bus = new EventEmitter();
    const heard: string[] = [];
    bus.on('updatedMainData', () => heard.push('updatedMainData'));
    runtime = createProjectionRuntime({ eventStore: store, readModels, publisher: broadcastPublisher(bus), logger, maxBatchSize: 100, dropDelayMs: 50 });
    await runtime.start();
    await runtime.live().settled();
    const before = await readModels.activeId();
    const membersBefore = (await (await readModels.active()).main()).members;

    // A reader polling through the rebuild never sees an empty or shrinking model.
    const seen: number[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        seen.push((await (await readModels.active()).main()).members);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const done = runtime.runRebuild();
    expect(runtime.rebuildState().state).toBe('running');
    await appendEvents(store, events.slice(cut)); // writes keep coming during the rebuild
    await done;
    polling = false;
    await poll;

    const after = await readModels.activeId();
    expect(after).not.toBe(before);
    expect(runtime.rebuildState()).toMatchObject({ state: 'idle', processed: events.length, total: events.length });
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(membersBefore);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);

    await runtime.live().settled();
    const clean = await createMemoryReadModels().active();
    await projectInto(clean, positioned(events));
    const rebuilt = await (await readModels.active()).dump();
    const want = await clean.dump();
    expect({ ...rebuilt, checkpoint: null }).toEqual({ ...want, checkpoint: null });
    expect(rebuilt.checkpoint).toBe((await runtime.status()).headPosition);

    // The rebuilt projector is now the live one, publishing again.
    heard.length = 0;
    await appendEvents(store, [...generateEvents({ users: 1, seed: 99, allMembers: true })]);
    await runtime.live().settled();
    expect(heard).toContain('updatedMainData');

    // The old keyspace is dropped once readers have moved.
    await new Promise((r) => setTimeout(r, 120));
    expect(await readModels.keyspace(before).checkpoint()).toBeNull();
    const status = await runtime.status();
    expect(status).toMatchObject({ lagEvents: 0, lastError: null, rebuild: { state: 'idle' } });
  });

  it.skipIf(!available)('switches readers only once the fresh keyspace can be searched: its deferred search index is built first', async () => {
    const { store, readModels } = await openSite();
    // Enough members that building their index takes longer than the switch itself.
    const events = [...generateEvents({ users: 3_000, seed: 5 })];
    await appendEvents(store, events);
    runtime = createProjectionRuntime({ eventStore: store, readModels, logger, dropDelayMs: 50 });
    await runtime.start();
    await runtime.live().settled();
    const before = await readModels.activeId();

    await runtime.runRebuild();
    // What a reader gets the moment the rebuild reports it is done.
    const active = await readModels.active();
    const query = { membersOnly: false, sets: parseQuery('Spain', false).sets, offset: 0, limit: 5 };
    const found = await active.users(query);
    const indexState = await active.indexState();

    expect(active.id).not.toBe(before);
    expect(indexState).toBe('complete');
    const clean = await createMemoryReadModels().active();
    await projectInto(clean, positioned(events));
    const want = await clean.users(query);
    expect(want.total).toBeGreaterThan(20);
    expect(found.total).toBe(want.total);
  });

  it.skipIf(!available)('drops the keyspace of a rebuild that died with its process once readers are past it, keeps a new version\'s build, and reports idle again', async () => {
    const { store, readModels } = await openSite();
    await appendEvents(store, generateEvents({ users: 20, seed: 2 }));
    const orphan = readModels.keyspace('ks-orphan');
    await orphan.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [] });
    const build = readModels.keyspace(`${BUILD_KEYSPACE_PREFIX}next`);
    await build.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes: [] });
    const states: string[] = [];
    runtime = createProjectionRuntime({ eventStore: store, readModels, logger, dropDelayMs: 300, onRebuildState: (s) => states.push(s.state) });
    await runtime.start();
    await runtime.live().settled();
    // Readers switched to the active keyspace a moment ago may still read the orphan: it goes after the delay.
    expect(await readModels.list()).toContain('ks-orphan');
    await vi.waitFor(async () => expect(await readModels.list()).toEqual([`${BUILD_KEYSPACE_PREFIX}next`, await readModels.activeId()].sort()));
    expect(states).toEqual(['idle']);
  });
});

describe('read models of an older search index', () => {
  it.skipIf(!redisReachable)('are re-projected at start into a fresh keyspace, readers switched over when it is done', async () => {
    const store = await openPgliteEventStore();
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    const root = `test:rm:${randomUUID()}`;
    const readModels = createRedisReadModels({ redis, root, activeCacheMs: 0 });
    let runtime: ProjectionRuntime | undefined;
    try {
      await appendEvents(store, generateEvents({ users: 50, seed: 3 }));
      runtime = createProjectionRuntime({ eventStore: store, readModels, logger });
      await runtime.start();
      await runtime.live().settled();
      await runtime.stop();
      const old = await readModels.activeId();
      expect(await readModels.outdated(old)).toBe(false);
      // What the previous index code left: the same keys without this index's marker.
      await redis.del(`${keyspacePrefix(root, old)}${INDEX_MARKER}`);
      expect(await readModels.outdated(old)).toBe(true);

      runtime = createProjectionRuntime({ eventStore: store, readModels, logger, dropDelayMs: 50 });
      await runtime.start();
      await eventually(async () => expect(await readModels.activeId()).not.toBe(old));
      const fresh = await readModels.activeId();
      expect(await readModels.outdated(fresh)).toBe(false);
      const page = await (await readModels.active()).users({ membersOnly: false, sets: [], offset: 0, limit: 1 });
      expect(page.total).toBe(50);
    } finally {
      await runtime?.stop();
      await store.close();
      await deleteKeysUnder(redis, root);
      redis.disconnect();
    }
  });
});
