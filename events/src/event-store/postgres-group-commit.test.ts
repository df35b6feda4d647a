/**
 * Group commit of the PostgreSQL store (sql/group-commit.ts): appends queued while another append is
 * in flight go out as one transaction, and each of them is still decided on its own.
 *
 * A batch is formed deterministically: the first append of a tick goes at once, alone; the
 * appends made in the same tick wait for it and then go out together.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchema, requireService, testPostgresUrl } from '../test-support/services';
import { newEvent, record } from '../test-support/event-store-contract';
import { eventually } from '../test-support/eventually';
import { WrongExpectedRevisionError, type AppendResult } from './port';
import { openPostgresEventStore } from './postgres';
import type { EventStoreLogger } from './sql/client';
import { DuplicateEventIdError } from './sql/errors';
import type { SqlEventStore } from './sql/store';

const url = testPostgresUrl();
const reachable = await requireService('PostgreSQL group commit', url, 5432);

/** Records warnings: a failed batch (its appends then sent one by one) is logged as one. */
function warnings(): EventStoreLogger & { messages: string[] } {
  const messages: string[] = [];
  return { messages, debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_obj, msg) => messages.push(msg ?? '') };
}

describe.skipIf(!reachable)('PostgreSQL event store: group commit', () => {
  const schema = `es_gc_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const logger = warnings();
  let store: SqlEventStore;
  const stream = (label: string) => `${label}-${randomUUID()}`;

  /** Sends `first` at once and the rest while it is in flight, so that the rest form one batch. */
  const batched = <T>(first: () => Promise<unknown>, rest: (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> => {
    const head = first();
    const settled = Promise.allSettled(rest.map((append) => append()));
    return head.then(() => settled);
  };
  const value = (outcome: PromiseSettledResult<AppendResult> | undefined): AppendResult => {
    if (outcome?.status !== 'fulfilled') throw new Error(`expected an acknowledged append, got ${String((outcome as PromiseRejectedResult | undefined)?.reason)}`);
    return outcome.value;
  };
  const reason = (outcome: PromiseSettledResult<unknown> | undefined): unknown => (outcome?.status === 'rejected' ? outcome.reason : undefined);

  beforeAll(async () => {
    store = await openPostgresEventStore({ connectionString: url, schema, poolSize: 4, logger });
  });
  afterAll(async () => {
    await store?.close();
    await dropPostgresSchema(url, schema);
  });

  it('many concurrent appends to different streams all land, with their revisions, in fewer transactions than appends', async () => {
    const streams = Array.from({ length: 60 }, () => stream('many'));
    const results: AppendResult[] = [];
    for (let round = 0; round < 4; round++) {
      results.push(...(await Promise.all(streams.map((s) => store.append(s, [newEvent('Counted', { round })], round === 0 ? 'no_stream' : round - 1)))));
    }
    expect(results.map((r) => r.nextExpectedRevision)).toEqual([0, 1, 2, 3].flatMap((round) => streams.map(() => round)));
    for (const s of streams) {
      expect((await store.readStream(s)).map((e) => [e.revision, e.data])).toEqual([0, 1, 2, 3].map((round) => [round, { round }]));
    }
    const transactions = new Set(results.map((r) => r.position.commit));
    // Per round: the first append alone, the other 59 together (or a few batches at most).
    expect(transactions.size).toBeLessThanOrEqual(results.length / 5);
    expect(logger.messages).toEqual([]);
  });

  it('a wrong expected revision inside a batch refuses that append only, with the actual revision', async () => {
    const [a, b, c, d] = [stream('a'), stream('b'), stream('c'), stream('d')];
    await store.append(c, [newEvent()], 'no_stream');
    await store.append(c, [newEvent()], 0);
    const [ok1, wrong, ok2, fresh] = await batched(
      () => store.append(a, [newEvent()]),
      [() => store.append(b, [newEvent()], 'no_stream'), () => store.append(c, [newEvent()], 0), () => store.append(d, [newEvent()]), () => store.append(stream('e'), [newEvent()], 'no_stream')],
    );
    const refusal = reason(wrong);
    expect(refusal).toBeInstanceOf(WrongExpectedRevisionError);
    expect((refusal as WrongExpectedRevisionError).actual).toBe(1);
    expect((refusal as WrongExpectedRevisionError).expected).toBe(0);
    // The others were acknowledged by the same transaction: the refusal did not split the batch.
    const committed = [value(ok1), value(ok2), value(fresh)];
    expect(new Set(committed.map((r) => r.position.commit)).size).toBe(1);
    expect(committed.map((r) => r.nextExpectedRevision)).toEqual([0, 0, 0]);
    expect((await store.readStream(c)).map((e) => e.revision)).toEqual([0, 1]);
    expect(logger.messages).toEqual([]);
  });

  it('a retried append inside a batch answers as the first time and stores nothing again', async () => {
    const s = stream('retried');
    const events = [newEvent(), newEvent()];
    await store.append(s, [newEvent()], 'no_stream');
    const first = await store.append(s, events, 0);
    const [before, retry, after] = await batched(
      () => store.append(stream('x'), [newEvent()]),
      [() => store.append(stream('y'), [newEvent()]), () => store.append(s, events, 0), () => store.append(stream('z'), [newEvent()])],
    );
    expect(value(retry)).toEqual(first);
    expect(value(before).position.commit).toBe(value(after).position.commit);
    expect((await store.readStream(s)).map((e) => e.id)).toHaveLength(3);
  });

  it('an event id reused inside a batch refuses that append only', async () => {
    const taken = newEvent();
    await store.append(stream('owner'), [taken]);
    const reuser = stream('reuser');
    const [ok1, reused, ok2] = await batched(
      () => store.append(stream('x'), [newEvent()]),
      [() => store.append(stream('y'), [newEvent()]), () => store.append(reuser, [newEvent(), taken]), () => store.append(stream('z'), [newEvent()])],
    );
    expect(reason(reused)).toBeInstanceOf(DuplicateEventIdError);
    expect(value(ok1).position.commit).toBe(value(ok2).position.commit);
    expect(await store.readStream(reuser)).toEqual([]);
  });

  it('appends to one stream queued together are applied in arrival order, each against the previous one', async () => {
    const s = stream('chain');
    await store.append(s, [newEvent('E0')], 'no_stream');
    const [second, stale, third, fourth] = await batched(
      () => store.append(stream('x'), [newEvent()]),
      [
        () => store.append(s, [newEvent('E1')], 0),
        () => store.append(s, [newEvent('Stale')], 0),
        () => store.append(s, [newEvent('E2'), newEvent('E3')], 1),
        () => store.append(s, [newEvent('E4')], 'stream_exists'),
      ],
    );
    expect([value(second), value(third), value(fourth)].map((r) => r.nextExpectedRevision)).toEqual([1, 3, 4]);
    expect((reason(stale) as WrongExpectedRevisionError).actual).toBe(1);
    expect((await store.readStream(s)).map((e) => [e.revision, e.type])).toEqual([
      [0, 'E0'],
      [1, 'E1'],
      [2, 'E2'],
      [3, 'E3'],
      [4, 'E4'],
    ]);
    expect(logger.messages).toEqual([]);
  });

  it('stream ids, types and payloads with quotes, backslashes, braces, commas and non-ASCII text arrive intact through a batch', async () => {
    const awkward = ['a "quoted", {braced} stream', 'back\\slash\\ NULL', 'é 😀 {}'];
    const events = awkward.map((text, i) => ({ ...newEvent(`Type, "${i}" {x}`, { text, nested: { list: [text, null, '\\"'] } }), metadata: { note: text } }));
    const streams = awkward.map((text) => `${text}-${randomUUID()}`);
    const outcomes = await batched(
      () => store.append(stream('x'), [newEvent()]),
      streams.map((s, i) => () => store.append(s, [events[i]!], 'no_stream')),
    );
    expect(new Set(outcomes.map((o) => value(o).position.commit)).size).toBe(1);
    for (const [i, s] of streams.entries()) {
      const [stored] = await store.readStream(s);
      expect(stored).toMatchObject({ id: events[i]!.id, streamId: s, type: events[i]!.type, data: events[i]!.data, metadata: events[i]!.metadata });
    }
  });

  it('a batch the database refuses as a whole falls back to one append at a time, with the single path answers', async () => {
    const twin = newEvent();
    const [one, two] = [stream('twin-1'), stream('twin-2')];
    // The same id twice in one batch fails its insert; sent one by one, the first stores it.
    const [ok, first, second] = await batched(
      () => store.append(stream('x'), [newEvent()]),
      [() => store.append(stream('y'), [newEvent()]), () => store.append(one, [twin]), () => store.append(two, [twin])],
    );
    expect(value(ok).nextExpectedRevision).toBe(0);
    expect(value(first).nextExpectedRevision).toBe(0);
    expect(reason(second)).toBeInstanceOf(DuplicateEventIdError);
    expect((await store.readStream(one)).map((e) => e.id)).toEqual([twin.id]);
    expect(logger.messages).toEqual(['event store: group commit batch failed, sending its appends one by one']);
    logger.messages.length = 0;
  });

  it('another instance is woken for a batch (NOTIFY after the commit)', async () => {
    const reader = await openPostgresEventStore({ connectionString: url, schema, poolSize: 2, pollIntervalMs: 60_000 });
    try {
      const s = stream('woken');
      const sub = record(reader, await reader.headPosition(), (id) => id.startsWith(s));
      await eventually(() => expect(sub.caughtUp).toBe(1));
      const ids = [newEvent(), newEvent(), newEvent()];
      await batched(
        () => store.append(`${s}-0`, [ids[0]!]),
        [() => store.append(`${s}-1`, [ids[1]!]), () => store.append(`${s}-2`, [ids[2]!])],
      );
      await eventually(() => expect(sub.events.map((e) => e.id).sort()).toEqual(ids.map((e) => e.id).sort()), 2_000);
      await sub.subscription.stop();
    } finally {
      await reader.close();
    }
  });

  it('two instances batching the same streams in opposite orders neither deadlock nor lose an append', async () => {
    const other = await openPostgresEventStore({ connectionString: url, schema, poolSize: 2, logger });
    try {
      const streams = Array.from({ length: 30 }, (_, i) => `crossed-${String(i).padStart(2, '0')}-${randomUUID()}`);
      const started = performance.now();
      for (let round = 0; round < 5; round++) {
        await Promise.all([...streams.map((s) => store.append(s, [newEvent()])), ...[...streams].reverse().map((s) => other.append(s, [newEvent()]))]);
      }
      // A deadlock would cost deadlock_timeout (1 s) and be logged as a failed batch.
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(logger.messages).toEqual([]);
      for (const s of streams) expect((await store.readStream(s)).map((e) => e.revision)).toEqual([...Array(10).keys()]);
    } finally {
      await other.close();
    }
  });
});
