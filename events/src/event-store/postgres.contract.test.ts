import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dropPostgresSchema, testPostgresUrl, requireService } from '../test-support/services';
import { describeEventStoreContract, newEvent, record } from '../test-support/event-store-contract';
import { eventually } from '../test-support/eventually';
import { EventStoreUnavailableError, START, comparePositions, type RecordedEvent } from './port';
import { openPostgresEventStore } from './postgres';
import { SqlEventStore } from './sql/store';
import { describeSqlEventStoreSpecifics } from '../test-support/sql-event-store-contract';

const url = testPostgresUrl();
const reachable = await requireService('PostgreSQL contract', url, 5432);

/** A fresh schema per suite, dropped afterwards. */
const freshSchema = async () => {
  const schema = `es_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  return {
    schema,
    open: () => openPostgresEventStore({ connectionString: url, schema, poolSize: 8 }),
    dispose: () => dropPostgresSchema(url, schema),
  };
};

describeEventStoreContract('PostgreSQL', freshSchema, { skip: !reachable });
describeSqlEventStoreSpecifics('PostgreSQL', freshSchema, { skip: !reachable });

describe.skipIf(!reachable)('PostgreSQL event store: global order under concurrent transactions', () => {
  it('a subscriber does not skip an event committed late by a slower transaction', async () => {
    const harness = await freshSchema();
    const store = await harness.open();
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    try {
      const s = `late-${randomUUID()}`;
      const before = await store.headPosition();
      const sub = record(store, before, (id) => id === s);
      await eventually(() => expect(sub.caughtUp).toBe(1));

      // The slow writer takes its transaction id first (lower), then stays open.
      const lateEvent = newEvent('CommittedLate');
      await slow.query('BEGIN');
      await slow.query(`SELECT * FROM "${harness.schema}".append_events($1, -2, $2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[])`, [
        s,
        [lateEvent.id],
        [lateEvent.type],
        [JSON.stringify(lateEvent.data)],
        [JSON.stringify(lateEvent.metadata)],
      ]);
      // A faster writer commits an event to another stream meanwhile: higher transaction id.
      const fast = newEvent('CommittedFirst');
      const fastResult = await store.append(`${s}-fast`, [fast]);

      // Events past the open transaction are held back: delivering `fast` now would move the
      // subscriber past the slow writer's position and skip its event for ever.
      const subAll = record(store, before, (id) => id.startsWith(s));
      await new Promise((done) => setTimeout(done, 150));
      expect(subAll.events).toEqual([]);
      expect((await store.readAll({ after: before })).some((e) => e.id === fast.id)).toBe(false);

      await slow.query('COMMIT');
      await eventually(() => expect(subAll.events.map((e) => e.id)).toEqual([lateEvent.id, fast.id]));
      await eventually(() => expect(sub.events.map((e) => e.id)).toEqual([lateEvent.id]));
      const [late, first] = subAll.events as [RecordedEvent, RecordedEvent];
      expect(comparePositions(late.position, first.position)).toBe(-1);
      expect(late.position.commit).toBeLessThan(fastResult.position.commit);
      await sub.subscription.stop();
      await subAll.subscription.stop();
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      await slow.end();
      await store.close();
      await harness.dispose();
    }
  });

  /**
   * A writer and a reader of one fresh schema, as two processes would hold them, and what the
   * server says of the reader's LISTEN connections. The reader polls every 60 s only: within a
   * test's time, only a notification can deliver.
   */
  const twoProcesses = async () => {
    const harness = await freshSchema();
    const writer = await harness.open();
    const reader = await openPostgresEventStore({ connectionString: url, schema: harness.schema, poolSize: 2, pollIntervalMs: 60_000 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    return {
      writer,
      reader,
      admin,
      listenerPids: async () =>
        (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`event-store-listen:${harness.schema}`])).rows.map((r) => r.pid),
      dispose: async () => {
        await admin.end();
        await reader.close();
        await writer.close();
        await harness.dispose();
      },
    };
  };

  it('live delivery to another process survives a dropped LISTEN connection', async () => {
    const { writer, reader, admin, listenerPids, dispose } = await twoProcesses();
    try {
      const s = `relisten-${randomUUID()}`;
      const sub = record(reader, await reader.headPosition(), (id) => id === s);
      await eventually(() => expect(sub.caughtUp).toBe(1));
      let before: number | undefined;
      await eventually(async () => expect((before = (await listenerPids())[0])).toBeDefined());
      await admin.query('SELECT pg_terminate_backend($1)', [before]);
      await eventually(async () => {
        const now = await listenerPids();
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(before);
      });
      const e = newEvent('AfterReconnect');
      await writer.append(s, [e]);
      await eventually(() => expect(sub.events.map((x) => x.id)).toEqual([e.id]), 2_000);
      await sub.subscription.stop();
    } finally {
      await dispose();
    }
  });

  it('only a process that subscribes keeps a LISTEN connection, and it hears the others from its first subscription', async () => {
    const { writer, reader, listenerPids, dispose } = await twoProcesses();
    const listeners = async () => (await listenerPids()).length;
    try {
      const s = `listen-${randomUUID()}`;
      // Two stores open, appending and reading: no NOTIFY wakes either of them.
      await writer.append(s, [newEvent('BeforeAnySubscription')]);
      expect(await reader.readStream(s)).toHaveLength(1);
      expect(await listeners()).toBe(0);
      const sub = record(reader, await reader.headPosition(), (id) => id === s);
      await eventually(async () => expect(await listeners()).toBe(1));
      const e = newEvent('AfterSubscribing');
      await writer.append(s, [e]);
      await eventually(() => expect(sub.events.map((x) => x.id)).toEqual([e.id]), 2_000);
      await sub.subscription.stop();
    } finally {
      await dispose();
    }
  });

  it('a $all page read in bulk (COPY) is the page read as rows, event for event, whatever the text holds', async () => {
    const harness = await freshSchema();
    const store = await harness.open();
    const { client, schema } = store;
    const rowsOnly = new SqlEventStore({ kind: 'postgres', client: { query: client.query.bind(client) }, schema, release: async () => {} });
    try {
      const before = await store.headPosition();
      // Every character COPY's text format escapes, in the stream id, the type, the data and the metadata.
      const odd = 'tab\t newline\n return\r backslash\\ \b\f\v quote" ünï 😀 \\N';
      const s = `copy-${randomUUID()}-${odd}`;
      const data = { text: odd, nested: { a: [1, 2.5, null, true], empty: {} }, big: 9007199254740991 };
      await store.append(s, [
        { ...newEvent(`Odd\t${odd}`, data), metadata: { schemaVersion: 2, actor: { type: 'user', id: odd } } },
        { ...newEvent('NullData', null), metadata: {} },
        ...Array.from({ length: 1_200 }, (_, i) => newEvent('E', { i })),
      ]);
      const [, asciiFrom] = await store.readAll({ after: before, maxCount: 2 });
      for (const keys of [undefined, ['schemaVersion'], ['schemaVersion', 'actor', 'missing']]) {
        // Pages with the odd text, and one of plain ASCII after it.
        for (const page of [{ after: before, maxCount: 1_000 }, { after: START, maxCount: 5_000 }, { after: asciiFrom!.position, maxCount: 1_100 }]) {
          const options = { ...page, ...(keys ? { metadataKeys: keys } : {}) };
          const [rows, copied] = await Promise.all([rowsOnly.readAll(options), store.readAll(options)]);
          expect(copied).toEqual(rows);
          expect(copied.length).toBe(page.after === asciiFrom!.position ? 1_100 : Math.min(page.maxCount, 1_202));
        }
      }
      const [first, second] = await store.readAll({ after: before, maxCount: 1_000 });
      expect([first!.streamId, first!.type, first!.data, first!.metadata]).toEqual([s, `Odd\t${odd}`, data, { schemaVersion: 2, actor: { type: 'user', id: odd } }]);
      expect(second!.data).toBeNull();
      expect(await store.readAll({ after: await store.headPosition(), maxCount: 5_000 })).toEqual([]);
    } finally {
      await store.close();
      await harness.dispose();
    }
  });

  it('an unreachable server surfaces as EventStoreUnavailableError', async () => {
    await expect(openPostgresEventStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test', connectTimeoutMs: 1_000 })).rejects.toBeInstanceOf(
      EventStoreUnavailableError,
    );
  });
});
