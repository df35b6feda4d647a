/**
 * The one contract every EventStore adapter passes. Each adapter's test file calls
 * `describeEventStoreContract` with a harness over fresh storage.
 *
 * Tests share one store per suite and use their own random stream names, so they also hold
 * against a server that keeps other data (EventStoreDB's $all holds system and other events:
 * every $all assertion filters on the test's own streams).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comparePositions,
  WrongExpectedRevisionError,
  type EventStore,
  type GlobalPosition,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
} from '../event-store/port';
import { eventually } from './eventually';

export interface ContractHarness {
  /** A store over the same storage on every call (used to test reopening). */
  open(): Promise<EventStore>;
  /** Deletes the storage. */
  dispose(): Promise<void>;
}

export function newEvent(type = 'TestHappened', data: unknown = { n: 1 }): NewEvent {
  return { id: randomUUID(), type, data, metadata: { correlationId: randomUUID(), schemaVersion: 1 } };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A subscription recording what it receives from the given streams. */
export function record(store: EventStore, after: GlobalPosition, streams: (streamId: string) => boolean, options: { handlerDelayMs?: number } = {}) {
  const events: RecordedEvent[] = [];
  const batches: number[] = [];
  let caughtUp = 0;
  let active = 0;
  let maxActive = 0;
  const errors: unknown[] = [];
  const subscription: Subscription = store.subscribeToAll({
    after,
    onEvents: async (batch) => {
      active++;
      maxActive = Math.max(maxActive, active);
      if (options.handlerDelayMs) await sleep(options.handlerDelayMs);
      const mine = batch.filter((e) => streams(e.streamId));
      events.push(...mine);
      if (mine.length) batches.push(mine.length);
      active--;
    },
    onCaughtUp: () => caughtUp++,
    onError: (error) => errors.push(error),
  });
  return {
    events,
    batches,
    errors,
    subscription,
    get caughtUp() {
      return caughtUp;
    },
    get maxActive() {
      return maxActive;
    },
  };
}

export function describeEventStoreContract(name: string, makeHarness: () => Promise<ContractHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`EventStore contract: ${name}`, () => {
    let harness: ContractHarness;
    let store: EventStore;
    const stream = (label: string) => `${label}-${randomUUID()}`;

    beforeAll(async () => {
      harness = await makeHarness();
      store = await harness.open();
    });

    afterAll(async () => {
      await store?.close();
      await harness?.dispose();
    });

    it('appends events and reads them back in order, with what was written', async () => {
      const s = stream('basic');
      const written = [newEvent('A', { a: 1, nested: { list: [1, 'two'] } }), newEvent('B', { b: 'x' }), newEvent('C', null)];
      const result = await store.append(s, written, 'no_stream');
      expect(result.nextExpectedRevision).toBe(2);

      const read = await store.readStream(s);
      expect(read.map((e) => [e.id, e.type, e.data, e.metadata, e.revision, e.streamId])).toEqual(
        written.map((e, i) => [e.id, e.type, e.data, e.metadata, i, s]),
      );
      expect(read.every((e) => e.recordedAt instanceof Date && !Number.isNaN(e.recordedAt.getTime()))).toBe(true);
      expect(comparePositions(read[2]!.position, result.position)).toBe(0);
      expect(await store.readStream(stream('missing'))).toEqual([]);
    });

    it('stores data and metadata verbatim, also from concurrent appends', async () => {
      const s = stream('verbatim');
      const awkward = ['q"uote', 'back\\slash', '{braces},[brackets]', 'comma, "and" quote', 'line\nbreak\ttab', 'ünïcødé ✓ 日本', 'NULL', ''];
      const written = awkward.map((text, i) => newEvent('Awkward', { text, i, nested: { text, list: [text, null, true, 1.5] } }));
      for (const e of written) e.metadata = { ...e.metadata, note: e.data };
      await Promise.all(written.map((e) => store.append(s, [e])));
      const read = await store.readStream(s);
      const byId = new Map(read.map((e) => [e.id, e]));
      for (const e of written) {
        expect(byId.get(e.id)?.data).toEqual(e.data);
        expect(byId.get(e.id)?.metadata).toEqual(e.metadata);
      }
    });

    it('expected revision no_stream: creates a stream, refuses an existing one', async () => {
      const s = stream('no-stream');
      await store.append(s, [newEvent()], 'no_stream');
      const refused = store.append(s, [newEvent()], 'no_stream');
      await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(refused).rejects.toMatchObject({ streamId: s, expected: 'no_stream', actual: 0 });
      expect(await store.readStream(s)).toHaveLength(1);
    });

    it('expected revision stream_exists: refuses a missing stream, accepts an existing one', async () => {
      const s = stream('exists');
      await expect(store.append(s, [newEvent()], 'stream_exists')).rejects.toMatchObject({
        name: 'WrongExpectedRevisionError',
        actual: -1,
      });
      expect(await store.readStream(s)).toEqual([]);
      await store.append(s, [newEvent()], 'any');
      const result = await store.append(s, [newEvent()], 'stream_exists');
      expect(result.nextExpectedRevision).toBe(1);
    });

    it('expected revision as a number: accepts the current revision only, appending nothing otherwise', async () => {
      const s = stream('exact');
      const first = await store.append(s, [newEvent(), newEvent()], 'no_stream');
      expect(first.nextExpectedRevision).toBe(1);
      const stale = store.append(s, [newEvent()], 0);
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(stale).rejects.toMatchObject({ expected: 0, actual: 1 });
      await expect(store.append(s, [newEvent()], 5)).rejects.toMatchObject({ actual: 1 });
      await expect(store.append(stream('exact-missing'), [newEvent()], 0)).rejects.toMatchObject({ actual: -1 });
      expect(await store.readStream(s)).toHaveLength(2);
      const next = await store.append(s, [newEvent()], first.nextExpectedRevision);
      expect(next.nextExpectedRevision).toBe(2);
    });

    it('expected revision any: always appends', async () => {
      const s = stream('any');
      expect((await store.append(s, [newEvent()], 'any')).nextExpectedRevision).toBe(0);
      expect((await store.append(s, [newEvent(), newEvent()])).nextExpectedRevision).toBe(2);
    });

    it('two writers deciding on the same revision: one wins, the other gets the typed conflict', async () => {
      const s = stream('race');
      const { nextExpectedRevision } = await store.append(s, [newEvent()], 'no_stream');
      const writers = [newEvent('WriterA'), newEvent('WriterB')];
      const outcomes = await Promise.allSettled(writers.map((e) => store.append(s, [e], nextExpectedRevision)));
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((lost[0]!.reason as WrongExpectedRevisionError).actual).toBe(1);
      const read = await store.readStream(s);
      expect(read).toHaveLength(2);
      const winner = outcomes[0]!.status === 'fulfilled' ? writers[0]! : writers[1]!;
      expect(read[1]!.id).toBe(winner.id);
    });

    it('a retried append with the same event ids returns the first result and stores nothing twice', async () => {
      const s = stream('retry');
      const batch = [newEvent(), newEvent()];
      const first = await store.append(s, batch, 'no_stream');
      const again = await store.append(s, batch, 'no_stream');
      expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect(comparePositions(again.position, first.position)).toBe(0);

      const more = [newEvent()];
      const third = await store.append(s, more, first.nextExpectedRevision);
      expect(await store.append(s, more, first.nextExpectedRevision)).toEqual(third);
      expect((await store.readStream(s)).map((e) => e.id)).toEqual([...batch, ...more].map((e) => e.id));
    });

    it('orders $all as the appends were acknowledged, and positions grow', async () => {
      const before = await store.headPosition();
      const a = stream('order-a');
      const b = stream('order-b');
      const acked: { id: string; position: GlobalPosition }[] = [];
      for (const s of [a, b, a, b, a]) {
        const e = newEvent();
        const r = await store.append(s, [e]);
        acked.push({ id: e.id, position: r.position });
      }
      const mine = (await readAllAfter(store, before)).filter((e) => e.streamId === a || e.streamId === b);
      expect(mine.map((e) => e.id)).toEqual(acked.map((x) => x.id));
      mine.forEach((e, i) => expect(comparePositions(e.position, acked[i]!.position)).toBe(0));
      for (let i = 1; i < mine.length; i++) expect(comparePositions(mine[i - 1]!.position, mine[i]!.position)).toBe(-1);
      expect(comparePositions(await store.headPosition(), acked[acked.length - 1]!.position)).toBeGreaterThanOrEqual(0);
    });

    it('reads a stream backwards, from a revision, and at most maxCount events', async () => {
      const s = stream('paging');
      await store.append(s, Array.from({ length: 10 }, (_, i) => newEvent('Numbered', { i })), 'no_stream');
      const revs = (events: RecordedEvent[]) => events.map((e) => e.revision);
      expect(revs(await store.readStream(s, { fromRevision: 3, maxCount: 4 }))).toEqual([3, 4, 5, 6]);
      expect(revs(await store.readStream(s, { direction: 'backwards' }))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(revs(await store.readStream(s, { direction: 'backwards', fromRevision: 5, maxCount: 3 }))).toEqual([5, 4, 3]);
      expect(revs(await store.readStream(s, { direction: 'backwards', maxCount: 2 }))).toEqual([9, 8]);
      expect(revs(await store.readStream(s, { fromRevision: 8 }))).toEqual([8, 9]);
      expect(await store.readStream(s, { fromRevision: 10 })).toEqual([]);
      expect((await store.readStream(s, { maxCount: 1 }))[0]!.data).toEqual({ i: 0 });
    });

    it('reads $all strictly after a position, at most maxCount events', async () => {
      const s = stream('all-from');
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await store.append(s, [newEvent('Numbered', { i })]));
      const mine = (await readAllAfter(store, results[1]!.position)).filter((e) => e.streamId === s);
      expect(mine.map((e) => e.revision)).toEqual([2, 3, 4]);
      const page = await store.readAll({ after: results[1]!.position, maxCount: 2 });
      expect(page).toHaveLength(2);
      expect(comparePositions(page[0]!.position, results[1]!.position)).toBe(1);
      expect(await store.readAll({ after: results[4]!.position, maxCount: 0 })).toEqual([]);
    });

    it('a subscription catches up, then receives live events in order, one batch at a time', async () => {
      const s = stream('sub');
      const before = await store.headPosition();
      const early = [newEvent('Early', { i: 0 }), newEvent('Early', { i: 1 }), newEvent('Early', { i: 2 })];
      await store.append(s, early);
      const sub = record(store, before, (id) => id === s, { handlerDelayMs: 5 });
      try {
        await eventually(() => expect(sub.caughtUp).toBe(1));
        await eventually(() => expect(sub.events.map((e) => e.id)).toEqual(early.map((e) => e.id)));

        const live = [newEvent('Live', { i: 3 }), newEvent('Live', { i: 4 })];
        const startedAt = Date.now();
        await store.append(s, [live[0]!]);
        await store.append(s, [live[1]!]);
        await eventually(() => expect(sub.events.map((e) => e.id)).toEqual([...early, ...live].map((e) => e.id)));
        // Live delivery is pushed, not left to a slow poll.
        expect(Date.now() - startedAt).toBeLessThan(1_000);
        expect(sub.events.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
        expect(sub.caughtUp).toBe(1);
        expect(sub.maxActive).toBe(1);
        expect(sub.errors).toEqual([]);
      } finally {
        await sub.subscription.stop();
      }
      // Stopped: nothing more arrives.
      await store.append(s, [newEvent('AfterStop')]);
      await sleep(200);
      expect(sub.events).toHaveLength(5);
    });

    it('stop() waits for the running handler and no batch follows', async () => {
      const s = stream('stop');
      const before = await store.headPosition();
      await store.append(s, [newEvent()]);
      let entered!: () => void;
      const handlerEntered = new Promise<void>((done) => (entered = done));
      let finished = false;
      let calls = 0;
      const subscription = store.subscribeToAll({
        after: before,
        maxBatchSize: 1,
        onEvents: async (batch) => {
          if (!batch.some((e) => e.streamId === s)) return;
          calls++;
          entered();
          await sleep(200);
          finished = true;
        },
      });
      await handlerEntered;
      await store.append(s, [newEvent()]);
      await subscription.stop();
      expect(finished).toBe(true);
      await sleep(100);
      expect(calls).toBe(1);
    });

    it('a handler that rejects stops the subscription and reports the error', async () => {
      const s = stream('failing');
      const before = await store.headPosition();
      await store.append(s, [newEvent()]);
      const errors: unknown[] = [];
      let calls = 0;
      const subscription = store.subscribeToAll({
        after: before,
        onEvents: async (batch) => {
          if (!batch.some((e) => e.streamId === s)) return;
          calls++;
          await sleep(1);
          throw new Error('projection failed');
        },
        onError: (error) => errors.push(error),
      });
      await eventually(() => expect(errors).toHaveLength(1));
      expect((errors[0] as Error).message).toBe('projection failed');
      await store.append(s, [newEvent()]);
      await sleep(100);
      expect(calls).toBe(1);
      await subscription.stop();
    });

    it('1,000 concurrent appends to 50 streams: nothing lost, nothing duplicated, revisions dense', async () => {
      const before = await store.headPosition();
      const prefix = `load-${randomUUID()}`;
      const streams = Array.from({ length: 50 }, (_, i) => `${prefix}-${i}`);
      const events = Array.from({ length: 1_000 }, (_, i) => ({ stream: streams[i % 50]!, event: newEvent('Load', { i }) }));
      const results = await Promise.all(events.map(({ stream: s, event }) => store.append(s, [event], 'any')));

      for (const s of streams) {
        const read = await store.readStream(s);
        expect(read.map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        const revisions = results.filter((_, i) => events[i]!.stream === s).map((r) => r.nextExpectedRevision);
        expect(new Set(revisions).size).toBe(20);
      }
      const all = (await readAllAfter(store, before)).filter((e) => e.streamId.startsWith(prefix));
      expect(all).toHaveLength(1_000);
      expect(new Set(all.map((e) => e.id))).toEqual(new Set(events.map((e) => e.event.id)));
      // $all agrees with each stream's order.
      const lastRevision = new Map<string, number>();
      for (const e of all) {
        expect(e.revision).toBe((lastRevision.get(e.streamId) ?? -1) + 1);
        lastRevision.set(e.streamId, e.revision);
      }
    });

    it('a reopened store keeps every acknowledged event and continues the revisions', async () => {
      const s = stream('reopen');
      const acked = [];
      for (let i = 0; i < 5; i++) {
        const e = newEvent('Kept', { i });
        await store.append(s, [e], i === 0 ? 'no_stream' : i - 1);
        acked.push(e.id);
      }
      const head = await store.headPosition();
      await store.close();
      store = await harness.open();
      expect((await store.readStream(s)).map((e) => e.id)).toEqual(acked);
      expect(comparePositions(await store.headPosition(), head)).toBeGreaterThanOrEqual(0);
      await expect(store.append(s, [newEvent()], 3)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const next = await store.append(s, [newEvent()], 4);
      expect(next.nextExpectedRevision).toBe(5);
      expect(comparePositions(next.position, head)).toBe(1);
    });
  });
}

/** Every event of $all after `after`, page by page. */
export async function readAllAfter(store: EventStore, after: GlobalPosition): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let position = after;
  for (;;) {
    const page = await store.readAll({ after: position, maxCount: 500 });
    out.push(...page);
    if (page.length < 500) return out;
    position = page[page.length - 1]!.position;
  }
}
