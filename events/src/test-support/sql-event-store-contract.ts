/**
 * Behaviour of the SQL adapters (PGlite, PostgreSQL) beyond the shared contract: event ids are
 * unique across the whole store, a read can ask for some metadata keys alone, a page read as one
 * JSON value equals the same page read as rows, and a closed store says it is unavailable.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent, type ContractHarness } from './event-store-contract';
import { EventStoreUnavailableError, WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../event-store/port';
import { eventually } from './eventually';
import { DuplicateEventIdError } from '../event-store/sql/errors';
import { SqlEventStore } from '../event-store/sql/store';

export function describeSqlEventStoreSpecifics(name: string, makeHarness: () => Promise<ContractHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`SQL event store: ${name}`, () => {
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

    it('refuses event ids already stored in another stream, appending nothing', async () => {
      const e = newEvent();
      await store.append(stream('first'), [e]);
      const other = stream('other');
      await expect(store.append(other, [e])).rejects.toBeInstanceOf(DuplicateEventIdError);
      await expect(store.append(other, [newEvent(), e])).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream(other)).toEqual([]);
    });

    it('refuses a retry whose batch differs from the stored one, accepts a prefix of it', async () => {
      const s = stream('partial');
      const [a, b] = [newEvent(), newEvent()];
      await store.append(s, [a, b], 'no_stream');
      await expect(store.append(s, [a, newEvent()], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventIdError);
      // A prefix of the stored batch is that batch's retry too: answered, not stored again.
      expect((await store.append(s, [a], 'no_stream')).nextExpectedRevision).toBe(0);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('a retry placed at another revision is a revision conflict', async () => {
      const s = stream('moved');
      const a = newEvent();
      await store.append(s, [newEvent()], 'no_stream');
      await store.append(s, [a], 0);
      await expect(store.append(s, [a], 5)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    });

    it('the same batch retried concurrently is stored once', async () => {
      const s = stream('twins');
      const batch = [newEvent(), newEvent()];
      const results = await Promise.all([store.append(s, batch, 'any'), store.append(s, batch, 'any'), store.append(s, batch, 'any')]);
      expect(new Set(results.map((r) => r.nextExpectedRevision))).toEqual(new Set([1]));
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('a malformed append among concurrent ones fails alone', async () => {
      const s = stream('mixed');
      const outcomes = await Promise.allSettled([
        store.append(s, [newEvent()]),
        store.append(s, [{ ...newEvent(), id: 'not-a-uuid' }]),
        store.append(s, [newEvent()]),
        store.append(s, [newEvent()], 'no_stream'),
        store.append(s, [newEvent()]),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('a $all read asked for some metadata keys delivers those alone, the events otherwise whole', async () => {
      const s = stream('slim');
      const before = await store.headPosition();
      const rich = { ...newEvent('Rich', { n: 1, name: 'Ann' }), metadata: { schemaVersion: 2, actor: { type: 'user', id: 'u-1' }, correlationId: randomUUID() } };
      const bare = { ...newEvent('Bare'), metadata: { correlationId: randomUUID() } };
      await store.append(s, [rich, bare]);
      const whole = (await store.readAll({ after: before })).filter((e) => e.streamId === s);
      const slim = (await store.readAll({ after: before, metadataKeys: ['schemaVersion', 'actor'] })).filter((e) => e.streamId === s);
      expect(slim.map((e) => e.metadata)).toEqual([{ schemaVersion: 2, actor: { type: 'user', id: 'u-1' } }, {}]);
      expect(slim.map(({ metadata: _m, ...rest }) => rest)).toEqual(whole.map(({ metadata: _m, ...rest }) => rest));
      expect((await store.readAll({ after: before, metadataKeys: [] })).filter((e) => e.streamId === s).map((e) => e.metadata)).toEqual([{}, {}]);
      await expect(store.readAll({ metadataKeys: ["x'; DROP TABLE events; --"] })).rejects.toThrow(/Not a metadata key/);
    });

    it('a subscription asked for some metadata keys delivers every batch with those alone', async () => {
      const s = stream('slim-sub');
      const before = await store.headPosition();
      await store.append(s, [{ ...newEvent(), metadata: { schemaVersion: 3, correlationId: randomUUID() } }]);
      const delivered: RecordedEvent[] = [];
      const sub = store.subscribeToAll({ after: before, maxBatchSize: 1, metadataKeys: ['schemaVersion'], onEvents: (batch) => void delivered.push(...batch.filter((e) => e.streamId === s)) });
      try {
        await eventually(() => expect(delivered).toHaveLength(1));
        await store.append(s, [{ ...newEvent(), metadata: { schemaVersion: 4, correlationId: randomUUID() } }]);
        await eventually(() => expect(delivered.map((e) => e.metadata)).toEqual([{ schemaVersion: 3 }, { schemaVersion: 4 }]));
      } finally {
        await sub.stop();
      }
    });

    it('a $all page read as one JSON value is the page read as rows, event for event', async () => {
      const sql = store as SqlEventStore;
      const reading = (pagesAsJson: boolean) => new SqlEventStore({ kind: sql.kind, client: sql.client, schema: sql.schema, pagesAsJson, release: async () => {} });
      const s = stream('json-page');
      const before = await store.headPosition();
      const odd = { text: 'tab\t"quote" \\ ünï 😀\n', nested: { a: [1, 2.5, null, true], empty: {} }, big: 9007199254740991 };
      await store.append(s, [
        { ...newEvent('Odd', odd), metadata: { schemaVersion: 2, actor: { type: 'user', id: 'u-1' } } },
        { ...newEvent('NullData', null), metadata: {} },
      ]);
      for (const keys of [undefined, ['schemaVersion'], ['schemaVersion', 'actor', 'missing']]) {
        const options = { after: before, maxCount: 1_000, ...(keys ? { metadataKeys: keys } : {}) };
        const [rows, json] = await Promise.all([reading(false).readAll(options), reading(true).readAll(options)]);
        expect(json).toEqual(rows);
        expect(json.filter((e) => e.streamId === s).map((e) => e.data)).toEqual([odd, null]);
        expect((await reading(true).readAll({ ...options, maxCount: 1 })).map((e) => e.id)).toEqual([rows[0]!.id]);
      }
      expect(await reading(true).readAll({ after: await store.headPosition(), maxCount: 10 })).toEqual([]);
      // Unbounded, it reads rows: the whole store as one JSON text could outgrow a string.
      expect((await reading(true).readAll({ after: before })).filter((e) => e.streamId === s).map((e) => e.data)).toEqual([odd, null]);
    });

    it('a bounded stream read as one JSON value is the read as rows, forwards and backwards', async () => {
      const sql = store as SqlEventStore;
      const reading = (pagesAsJson: boolean) => new SqlEventStore({ kind: sql.kind, client: sql.client, schema: sql.schema, pagesAsJson, release: async () => {} });
      const s = stream('json-stream');
      const odd = { text: 'tab\t"quote" \\ ünï 😀\n', nested: { a: [1, 2.5, null, true], empty: {} } };
      await store.append(s, [
        { ...newEvent('Odd', odd), metadata: { schemaVersion: 2, actor: { type: 'user', id: 'u-1' } } },
        { ...newEvent('NullData', null), metadata: {} },
        ...Array.from({ length: 5 }, (_, i) => newEvent('E', { i })),
      ]);
      for (const options of [{ maxCount: 100 }, { fromRevision: 2, maxCount: 3 }, { direction: 'backwards' as const, maxCount: 4 }, { direction: 'backwards' as const, fromRevision: 1, maxCount: 10 }, { fromRevision: 7, maxCount: 5 }]) {
        const [rows, json] = await Promise.all([reading(false).readStream(s, options), reading(true).readStream(s, options)]);
        expect(json).toEqual(rows);
      }
      expect((await reading(true).readStream(s, { maxCount: 2 })).map((e) => e.data)).toEqual([odd, null]);
      expect((await reading(true).readStream(s, { direction: 'backwards', maxCount: 2 })).map((e) => e.revision)).toEqual([6, 5]);
      expect(await reading(true).readStream(stream('json-none'), { maxCount: 10 })).toEqual([]);
    });

    it('a closed store answers EventStoreUnavailableError', async () => {
      await store.close();
      await expect(store.readStream('x')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.append('x', [newEvent()])).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    });
  });
}
