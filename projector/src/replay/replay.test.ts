import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { comparePositions, fundsRaised, positionFromString, positionToString, type DomainEvent, type EventStore, type ReplayStatus } from '@pass/events';
import { EncryptingEventStore, MemoryKeyStore } from '@pass/events/personal-data';
import { openPgliteEventStore } from '@pass/events/store';
import { eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { projectInto, toPositioned } from '../projections/apply';
import { createMemoryReadModels } from '../read-models/memory';
import type { ReadModelStore } from '../read-models/port';
import { createRedisReadModels } from '../read-models/redis';
import { deleteKeysUnder, scanKeys } from '../read-models/redis-admin';
import { keyspacePrefix } from '../read-models/redis/keys';
import { appendEvents } from '../test-support/append';
import { generateEvents } from '../test-support/generate-events';
import { BOB, recordedDay } from '../test-support/recorded-events';
import { checkMoment } from './moment';
import { eraseMembersErasedAfter, replayInto } from './replay';
import { runReplay } from './runner';
import { memoryReplayStates } from './states';

const logger = pino({ level: 'silent' });
const reachable = await requireService('projector: replays into Redis', testRedisUrl(), 6379);
const redis = reachable ? new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 }) : undefined;
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await deleteKeysUnder(redis!, root);
  redis?.disconnect();
});

const adapters: Array<[string, boolean, () => ReadModelStore]> = [
  ['memory', true, () => createMemoryReadModels()],
  [
    'redis',
    reachable,
    () => {
      const root = `test:replay:${randomUUID()}`;
      roots.push(root);
      return createRedisReadModels({ redis: redis!, root });
    },
  ],
];

const erasure: DomainEvent = { type: 'MemberErased', data: { userId: BOB, requestedBy: 'member', erasedAt: '2026-11-03T12:00:00.000Z' } };

/** A store keeping personal data sealed, as every process opens it, holding the recorded day and more members, appended in parts. */
async function siteInParts(): Promise<{ store: EventStore; moments: Array<{ position: string; dump: unknown }> }> {
  const store = new EncryptingEventStore(await openPgliteEventStore(), new MemoryKeyStore());
  const parts = [recordedDay.slice(0, 12), recordedDay.slice(12), [...generateEvents({ users: 150, seed: 7 })]];
  const moments = [];
  for (const part of parts) {
    await appendEvents(store, part);
    // What the live read models held at this moment: everything so far, projected at once.
    const reference = await createMemoryReadModels().active();
    await projectInto(reference, toPositioned(await store.readAll()));
    moments.push({ position: positionToString(await store.headPosition()), dump: await reference.dump() });
  }
  return { store, moments };
}

describe.each(adapters)('a replay (%s read models)', (_name, available, open) => {
  it.skipIf(!available)('holds, at each earlier moment, the read models the live ones held then; a member erased since stays erased', async () => {
    const { store, moments } = await siteInParts();
    try {
      const keyspaces = open();
      let erasuresTo = '';
      for (const [i, moment] of moments.entries()) {
        const target = await checkMoment(store, { position: moment.position });
        if ('error' in target) throw new Error(target.error);
        const run = await replayInto({ eventStore: store, keyspace: keyspaces.keyspace(`before-${i}`), target: target.target });
        expect(run.position).toBe(moment.position);
        expect(await keyspaces.keyspace(`before-${i}`).dump()).toEqual(moment.dump);
        erasuresTo = run.erasuresTo;
      }
      await appendEvents(store, [erasure]);
      const last = moments[moments.length - 1]!;
      const target = await checkMoment(store, { position: last.position });
      if ('error' in target) throw new Error(target.error);
      const replayed = keyspaces.keyspace('after-erasure');
      const run = await replayInto({ eventStore: store, keyspace: replayed, target: target.target });
      expect(run.position).toBe(last.position);
      const then = await keyspaces.keyspace(`before-${moments.length - 1}`).main();
      const main = await replayed.main();
      expect(main).toEqual({ ...then, members: then.members - 1 });
      expect(fundsRaised(main)).toBe(fundsRaised(then));
      expect(await replayed.userById(BOB)).toBeNull();
      const ranking = await replayed.users({ membersOnly: false, sets: [], offset: 0, limit: 1_000 });
      expect(ranking.rows.some((r) => r.row.userId === BOB)).toBe(false);
      expect((await replayed.chat(500)).messages.some((m) => m.userId === BOB)).toBe(false);
      // The replay made before Bob was erased loses him too, once brought up to date.
      const madeBefore = keyspaces.keyspace(`before-${moments.length - 1}`);
      expect(await madeBefore.userById(BOB)).not.toBeNull();
      await eraseMembersErasedAfter(madeBefore, store, erasuresTo);
      expect({ ...(await madeBefore.dump()), checkpoint: null }).toEqual({ ...(await replayed.dump()), checkpoint: null });
    } finally {
      await store.close();
    }
  });

  it.skipIf(!available)('with the live read models at hand, erases members erased since without reading the store past its moment', async () => {
    const { store, moments } = await siteInParts();
    try {
      // More than a page (5,000 events) after the moment.
      await appendEvents(store, [erasure, ...generateEvents({ users: 1_200, seed: 11 })]);
      const keyspaces = open();
      const live = keyspaces.keyspace('live');
      await projectInto(live, toPositioned(await store.readAll()));
      // Every event handed back by a read of the whole store, whoever reads it.
      const handedBack: string[] = [];
      const counting: EventStore = Object.assign(Object.create(store) as EventStore, {
        readAll: async (options?: Parameters<EventStore['readAll']>[0]) => {
          const page = await store.readAll(options);
          handedBack.push(...page.map((event) => positionToString(event.position)));
          return page;
        },
      });
      const middle = moments[1]!;
      const target = await checkMoment(store, { position: middle.position });
      if ('error' in target) throw new Error(target.error);
      handedBack.length = 0;
      const replayed = keyspaces.keyspace('middle');
      const run = await replayInto({ eventStore: counting, keyspace: replayed, target: target.target, live: async () => live });
      expect(run.erasuresTo).toBe(await live.checkpoint());
      const isBeyond = (position: string) => comparePositions(positionFromString(position), positionFromString(middle.position)) > 0;
      const after = (await store.readAll()).filter((event) => isBeyond(positionToString(event.position))).length;
      expect(after).toBeGreaterThan(5_000);
      // Only what the page ending the replay holds past the moment, never the rest of the store.
      expect(handedBack.filter(isBeyond).length).toBeLessThanOrEqual(5_000);
      // The same read models as the replay that reads on for erasures.
      const readingOn = keyspaces.keyspace('middle-reading-on');
      await replayInto({ eventStore: store, keyspace: readingOn, target: target.target });
      expect(await replayed.userById(BOB)).toBeNull();
      expect({ ...(await replayed.dump()), checkpoint: null }).toEqual({ ...(await readingOn.dump()), checkpoint: null });
    } finally {
      await store.close();
    }
  });

  it.skipIf(!available)('stops at a time before the first event recorded after it', async () => {
    const store = new EncryptingEventStore(await openPgliteEventStore(), new MemoryKeyStore());
    try {
      await appendEvents(store, recordedDay);
      const all = await store.readAll();
      const pick = all[9]!;
      const target = await checkMoment(store, { at: pick.recordedAt.toISOString() });
      if ('error' in target) throw new Error(target.error);
      const keyspace = open().keyspace('at');
      const run = await replayInto({ eventStore: store, keyspace, target: target.target });
      const included = all.filter((event) => event.recordedAt.getTime() <= pick.recordedAt.getTime());
      expect(run).toEqual({
        events: included.length,
        position: positionToString(included[included.length - 1]!.position),
        at: pick.recordedAt.toISOString(),
        erasuresTo: positionToString(await store.headPosition()),
      });
      expect(await keyspace.checkpoint()).toBe(run.position);
    } finally {
      await store.close();
    }
  });
});

describe('a replay in the process that serves the site', () => {
  it('lets other work run between its pages: requests are answered while it replays', async () => {
    // Over two pages of events. PGlite and the memory read models answer without any I/O, so a
    // replay that never yields would hold the event loop (and every request) until it ends.
    const store = await openPgliteEventStore();
    await appendEvents(store, [...generateEvents({ users: 2_400, seed: 3 })]);
    const total = (await store.readAll()).length;
    expect(total).toBeGreaterThan(10_000);
    let replayed = 0;
    const seenMeanwhile: number[] = [];
    const ticker = setInterval(() => seenMeanwhile.push(replayed), 0);
    const keyspace = await createMemoryReadModels().active();
    const moment = await checkMoment(store, { position: positionToString(await store.headPosition()) });
    if ('error' in moment) throw new Error(moment.error);
    const run = await replayInto({ eventStore: store, keyspace, target: moment.target, onProgress: (events) => void (replayed = events) });
    clearInterval(ticker);
    expect(run.events).toBe(total);
    expect(seenMeanwhile.some((events) => events > 0 && events < total)).toBe(true);
    await store.close();
  }, 60_000);
});

describe('the moment asked for', () => {
  it('is refused before the first event, in the future, or when it is no moment at all', async () => {
    const store = await openPgliteEventStore();
    try {
      expect(await checkMoment(store, { at: new Date().toISOString() })).toEqual({ error: expect.stringMatching(/eventos/) });
      await appendEvents(store, recordedDay.slice(0, 5));
      const [first] = await store.readAll({ maxCount: 1 });
      const head = await store.headPosition();
      const refused = async (request: { at: string } | { position: string }) => ('error' in (await checkMoment(store, request)) ? 'refused' : 'ok');
      expect(await refused({ at: new Date(first!.recordedAt.getTime() - 1).toISOString() })).toBe('refused');
      expect(await refused({ at: new Date(Date.now() + 60_000).toISOString() })).toBe('refused');
      expect(await refused({ at: 'yesterday' })).toBe('refused');
      expect(await refused({ position: `${head.commit + 1n}/0` })).toBe('refused');
      expect(await refused({ position: '0/0' })).toBe('refused');
      expect(await refused({ position: 'x/y' })).toBe('refused');
      expect(await refused({ position: positionToString(head) })).toBe('ok');
      expect(await refused({ at: first!.recordedAt.toISOString() })).toBe('ok');
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!reachable)('a replay job in Redis', () => {
  it('keeps its keys only as long as its status, and leaves none when deleted while it runs', async () => {
    const store = await openPgliteEventStore();
    const root = `test:replay:${randomUUID()}`;
    roots.push(root);
    try {
      await appendEvents(store, generateEvents({ users: 300, seed: 4 }));
      const keyspaces = createRedisReadModels({ redis: redis!, root });
      const states = memoryReplayStates();
      const deps = { eventStore: store, states, keyspaces, logger, ttlMs: 60_000, expire: async (id: string, atMs: number) => {
        for await (const keys of scanKeys(redis!, `${keyspacePrefix(root, id)}*`)) for (const key of keys) await redis!.pexpireat(key, atMs);
      } };
      const target = await checkMoment(store, { position: positionToString(await store.headPosition()) });
      if ('error' in target) throw new Error(target.error);
      const asked: ReplayStatus = { id: 'r1', status: 'running', progress: 0, at: null, position: null, events: 0, startedAt: new Date().toISOString(), error: null };
      await states.create(asked);
      await runReplay(deps, 'r1', target.target);
      expect(await states.get('r1')).toMatchObject({ status: 'ready', progress: 1, events: (await store.readAll()).length });
      const keys: string[] = [];
      for await (const batch of scanKeys(redis!, `${keyspacePrefix(root, 'r1')}*`)) keys.push(...batch);
      expect(keys.length).toBeGreaterThan(5);
      for (const key of keys) expect(await redis!.pttl(key)).toBeGreaterThan(0);

      await states.create({ ...asked, id: 'r2' });
      const running = runReplay({ ...deps, states: { ...states, update: async (status) => {
        // Deleted by the admin once the first page is stored.
        if (status.events > 0) await states.remove(status.id);
        return states.update(status);
      } } }, 'r2', target.target);
      await running;
      expect(await states.get('r2')).toBeNull();
      await eventually(async () => expect(await keyspaces.list()).toEqual(['r1']));
    } finally {
      await store.close();
    }
  });
});
