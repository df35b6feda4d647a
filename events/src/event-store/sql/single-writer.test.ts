import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../test-support/event-store-contract';
import { openPgliteEventStore } from '../pglite';
import { WrongExpectedRevisionError } from '../port';
import { EXPECT } from './expected-revision';
import { SingleWriterAppends, expectationHolds } from './single-writer';
import type { SqlEventStore } from './store';

// The embedded store's own append path (one writer, revisions in memory); the shared contract
// suite covers the rest of its behaviour.
describe('single-writer appends (PGlite)', () => {
  let store: SqlEventStore;
  beforeAll(async () => {
    store = await openPgliteEventStore();
  });
  afterAll(() => store.close());

  const appender = (maxCachedStreams = 100) => {
    const { client } = store;
    return new SingleWriterAppends({ query: client.query.bind(client), queryPrepared: client.queryPrepared!.bind(client) }, 'event_store', maxCachedStreams);
  };
  const revisions = async (streamId: string) => (await store.readStream(streamId)).map((e) => e.revision);

  it('appends sent together are each stored, and a retry of stored ids among them is answered as the first time', async () => {
    const first = newEvent('Joined');
    const acknowledged = await store.append('sw-group-a', [first], 'no_stream');
    const outcomes = await Promise.all([
      store.append('sw-group-b', [newEvent(), newEvent()], 'no_stream'),
      store.append('sw-group-a', [first], 'no_stream'), // the client retrying after a lost answer
      store.append('sw-group-a', [newEvent()], 0),
      store.append('sw-group-c', [newEvent()], 'any'),
    ]);
    expect(outcomes[1]).toEqual(acknowledged);
    expect(outcomes.map((o) => o.nextExpectedRevision)).toEqual([1, 0, 1, 0]);
    expect(await revisions('sw-group-a')).toEqual([0, 1]);
    expect(await revisions('sw-group-b')).toEqual([0, 1]);
  });

  it('of two appends expecting the same revision one is stored, the other is refused with the revision that won', async () => {
    await store.append('sw-race', [newEvent()], 'no_stream');
    const results = await Promise.allSettled([store.append('sw-race', [newEvent()], 0), store.append('sw-race', [newEvent(), newEvent()], 0)]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: expect.objectContaining({ nextExpectedRevision: 1 }) });
    expect(results[1].status).toBe('rejected');
    const refusal = (results[1] as PromiseRejectedResult).reason as WrongExpectedRevisionError;
    expect(refusal).toBeInstanceOf(WrongExpectedRevisionError);
    expect(refusal.actual).toBe(1);
    expect(await revisions('sw-race')).toEqual([0, 1]);
  });

  it('an event id reused on another stream fails only its own append', async () => {
    const used = newEvent();
    await store.append('sw-reuse-1', [used]);
    const results = await Promise.allSettled([store.append('sw-reuse-2', [used]), store.append('sw-reuse-3', [newEvent()])]);
    expect(results[0].status).toBe('rejected');
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/already (used|stored)/);
    expect(results[1].status).toBe('fulfilled');
    expect(await revisions('sw-reuse-2')).toEqual([]);
  });

  it('streams pushed out of the bounded memory are read again from the table', async () => {
    const small = appender(2);
    const streams = ['sw-lru-1', 'sw-lru-2', 'sw-lru-3', 'sw-lru-4', 'sw-lru-5'];
    for (const s of streams) expect(await small.append(s, EXPECT.noStream, [newEvent()])).toMatchObject({ result: expect.stringMatching(/^0\//) });
    for (const s of streams) expect(await small.append(s, 0, [newEvent()])).toMatchObject({ result: expect.stringMatching(/^1\//) });
    expect(await small.append('sw-lru-1', 0, [newEvent()])).toEqual({ refused: 1 });
    expect(await small.append('sw-lru-9', EXPECT.streamExists, [newEvent()])).toEqual({ refused: -1 });
  });

  it('memory that fell behind the table (it should not) is corrected by the unique index, not written over', async () => {
    const stale = appender();
    await stale.append('sw-stale', EXPECT.noStream, [newEvent()]); // remembers revision 0
    await store.append('sw-stale', [newEvent()], 0); // another writer moves the stream on
    expect(await stale.append('sw-stale', EXPECT.any, [newEvent()])).toMatchObject({ result: expect.stringMatching(/^2\//) });
    expect(await stale.append('sw-stale', 2, [newEvent()])).toMatchObject({ result: expect.stringMatching(/^3\//) });
    expect(await revisions('sw-stale')).toEqual([0, 1, 2, 3]);
  });

  it('expectations', () => {
    expect(expectationHolds(EXPECT.any, -1)).toBe(true);
    expect(expectationHolds(EXPECT.noStream, -1)).toBe(true);
    expect(expectationHolds(EXPECT.noStream, 0)).toBe(false);
    expect(expectationHolds(EXPECT.streamExists, -1)).toBe(false);
    expect(expectationHolds(EXPECT.streamExists, 3)).toBe(true);
    expect(expectationHolds(3, 3)).toBe(true);
    expect(expectationHolds(2, 3)).toBe(false);
  });
});
