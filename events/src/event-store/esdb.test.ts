import { createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  DeadlineExceededError,
  EventStoreDBClient,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { describe, expect, it, vi } from 'vitest';
import { describeEventStoreContract } from '../test-support/event-store-contract';
import { FakeEsdb } from '../test-support/esdb-fake';
import {
  createEsdbEventStore,
  fromEsdbCurrentRevision,
  isSystemEvent,
  mapEsdbError,
  openEsdbEventStore,
  toEsdbConnectionString,
  toEsdbExpectedRevision,
  toEsdbReadPosition,
} from './esdb';
import {
  EventStoreUnavailableError,
  START,
  WrongExpectedRevisionError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from './port';

// The adapter's own logic (mappings, paging, exclusive positions, batching, backpressure, caught
// up, stop) is tested here without a server: against the real client's error classes, against
// the real client talking to a closed port, and against a fake client that answers the way the
// v6 client documents. The same adapter against a real server is esdb.contract.test.ts.

describe('EventStoreDB mappings', () => {
  it('maps expected revisions to the client', () => {
    expect(toEsdbExpectedRevision('any')).toBe('any');
    expect(toEsdbExpectedRevision('no_stream')).toBe('no_stream');
    expect(toEsdbExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(toEsdbExpectedRevision(0)).toBe(0n);
    expect(toEsdbExpectedRevision(41)).toBe(41n);
    // -1 is what WrongExpectedRevisionError.actual reports for a missing stream.
    expect(toEsdbExpectedRevision(-1)).toBe('no_stream');
    expect(() => toEsdbExpectedRevision(-2)).toThrow(RangeError);
    expect(() => toEsdbExpectedRevision(1.5)).toThrow(RangeError);
  });

  it('maps current revisions back to numbers, -1 for no stream', () => {
    expect(fromEsdbCurrentRevision('no_stream')).toBe(-1);
    expect(fromEsdbCurrentRevision(undefined)).toBe(-1);
    expect(fromEsdbCurrentRevision(0n)).toBe(0);
    expect(fromEsdbCurrentRevision(7n)).toBe(7);
  });

  it('reads from the start for START and from the position itself otherwise', () => {
    expect(toEsdbReadPosition(undefined)).toBe('start');
    expect(toEsdbReadPosition(START)).toBe('start');
    expect(toEsdbReadPosition({ commit: 120n, prepare: 118n })).toEqual({ commit: 120n, prepare: 118n });
  });

  it('recognises system events by type or stream', () => {
    expect(isSystemEvent({ streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' })).toBe(true);
    expect(isSystemEvent({ streamId: '$$user-1', type: '$metadata' })).toBe(true);
    expect(isSystemEvent({ streamId: '$ce-user', type: '$>' })).toBe(true);
    expect(isSystemEvent({ streamId: 'user-1', type: 'UserRegistered' })).toBe(false);
  });

  it('maps a wrong expected version to the port error with the actual revision', () => {
    const error = new WrongExpectedVersionError(undefined, { streamName: 'user-1', expected: 3n, current: 5n });
    const mapped = mapEsdbError(error, { streamId: 'user-1', expected: 3 });
    expect(mapped).toBeInstanceOf(WrongExpectedRevisionError);
    expect(mapped).toMatchObject({ streamId: 'user-1', expected: 3, actual: 5 });

    const missing = new WrongExpectedVersionError(undefined, {
      streamName: 'email-x',
      expected: 'stream_exists',
      current: 'no_stream',
    });
    expect(mapEsdbError(missing, { streamId: 'email-x', expected: 'stream_exists' })).toMatchObject({ actual: -1 });
  });

  it('maps unreachable-server errors to EventStoreUnavailableError and keeps the cause', () => {
    for (const error of [
      new UnavailableError(undefined, 'no connection'),
      new DeadlineExceededError(),
      new Error('Failed to discover after 10 attempts.'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2113'), { code: 'ECONNREFUSED' }),
    ]) {
      const mapped = mapEsdbError(error);
      expect(mapped).toBeInstanceOf(EventStoreUnavailableError);
      expect((mapped as Error).cause).toBe(error);
    }
  });

  it('accepts KurrentDB connection-string schemes', () => {
    expect(toEsdbConnectionString('kurrentdb://admin:changeit@db:2113?tls=false')).toBe('esdb://admin:changeit@db:2113?tls=false');
    expect(toEsdbConnectionString('kurrentdb+discover://a,b,c')).toBe('esdb+discover://a,b,c');
    expect(toEsdbConnectionString('esdb://localhost:2113')).toBe('esdb://localhost:2113');
  });

  it('leaves other errors alone', () => {
    const error = new TypeError('bad input');
    expect(mapEsdbError(error)).toBe(error);
    const notFound = new StreamNotFoundError(undefined, 'user-1');
    expect(mapEsdbError(notFound)).toBe(notFound);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('EventStoreDB adapter with the real client and no server', () => {
  it('fails to open with EventStoreUnavailableError', async () => {
    const port = await closedPort();
    await expect(openEsdbEventStore({ connectionString: `esdb://127.0.0.1:${port}?tls=false` })).rejects.toBeInstanceOf(
      EventStoreUnavailableError,
    );
  });

  it('answers every call with EventStoreUnavailableError when the server goes away', async () => {
    const port = await closedPort();
    const store = createEsdbEventStore(EventStoreDBClient.connectionString(`esdb://127.0.0.1:${port}?tls=false`));
    try {
      await expect(store.append('user-1', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      // Not "stream not found": an unreachable store must never read as an empty stream.
      await expect(store.readStream('user-1')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.readAll()).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(EventStoreUnavailableError);
      const onError = vi.fn();
      const sub = store.subscribeToAll({ onEvents: () => {}, onError });
      await waitFor(() => onError.mock.calls.length > 0, 5_000);
      expect(onError.mock.calls[0]![0]).toBeInstanceOf(EventStoreUnavailableError);
      await sub.stop();
    } finally {
      await store.close();
    }
  });
});

const newEvent = (type = 'FreePointAwarded', data: unknown = { n: 1 }): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { correlationId: 'c-1', causationId: 'c-1' },
});

function setup(): { fake: FakeEsdb; store: EventStore } {
  const fake = new FakeEsdb();
  return { fake, store: createEsdbEventStore(fake.asClient()) };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const waitFor = (check: () => boolean, timeoutMs = 2_000) =>
  vi.waitFor(() => {
    if (!check()) throw new Error('not yet');
  }, { timeout: timeoutMs, interval: 5 });

describe('EventStoreDB adapter over a fake client', () => {
  it('appends, reports the next revision and the last event position, and reads the stream back', async () => {
    const { fake, store } = setup();
    const events = [newEvent('A', { a: 1 }), newEvent('B', ['x']), newEvent('C', 'text')];
    const result = await store.append('user-1', events, 'no_stream');
    expect(result.nextExpectedRevision).toBe(2);
    // Several events: the position is the last event's own, not the transaction's.
    expect(result.position).toEqual(fake.log.at(-1)!.position);

    const read = await store.readStream('user-1');
    expect(read.map((e) => [e.id, e.type, e.revision, e.data])).toEqual([
      [events[0]!.id, 'A', 0, { a: 1 }],
      [events[1]!.id, 'B', 1, ['x']],
      [events[2]!.id, 'C', 2, 'text'],
    ]);
    expect(read[0]!.metadata).toEqual({ correlationId: 'c-1', causationId: 'c-1' });
    expect(read[0]!.recordedAt).toBeInstanceOf(Date);

    const single = await store.append('user-1', [newEvent()], 2);
    expect(single).toEqual({ nextExpectedRevision: 3, position: fake.log.at(-1)!.position });
  });

  it('falls back to the append position when stream reads carry none (ESDB < 22.6)', async () => {
    const { fake, store } = setup();
    fake.legacyStreamReads = true;
    const result = await store.append('user-1', [newEvent(), newEvent()]);
    // The transaction's position: still after everything before the append, and within it.
    expect(result.position).toEqual(fake.log[0]!.position);
    const read = await store.readStream('user-1');
    expect(read.map((e) => e.revision)).toEqual([0, 1]);
  });

  it('turns a revision conflict into WrongExpectedRevisionError and appends nothing', async () => {
    const { fake, store } = setup();
    await store.append('email-abc', [newEvent()], 'no_stream');
    const error = await store.append('email-abc', [newEvent()], 'no_stream').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ streamId: 'email-abc', expected: 'no_stream', actual: 0 });
    await expect(store.append('user-9', [newEvent()], 'stream_exists')).rejects.toMatchObject({ actual: -1 });
    await expect(store.append('email-abc', [newEvent()], 5)).rejects.toMatchObject({ expected: 5, actual: 0 });
    expect(fake.log).toHaveLength(1);
  });

  it('refuses an empty append', async () => {
    const { store } = setup();
    await expect(store.append('user-1', [])).rejects.toThrow(RangeError);
  });

  it('reads a missing stream as empty, and honours direction, fromRevision and maxCount', async () => {
    const { store } = setup();
    expect(await store.readStream('user-none')).toEqual([]);
    await store.append('user-2', [1, 2, 3, 4, 5].map((n) => newEvent('E', { n })));
    const revisions = (events: RecordedEvent[]) => events.map((e) => e.revision);
    expect(revisions(await store.readStream('user-2', { fromRevision: 2 }))).toEqual([2, 3, 4]);
    expect(revisions(await store.readStream('user-2', { direction: 'backwards', maxCount: 2 }))).toEqual([4, 3]);
    expect(revisions(await store.readStream('user-2', { direction: 'backwards', fromRevision: 1 }))).toEqual([1, 0]);
    expect(revisions(await store.readStream('user-2', { maxCount: 0 }))).toEqual([]);
  });

  it('reads $all strictly after a position, skips system events and pages past the page size', async () => {
    const { fake, store } = setup();
    fake.record('$stats-node', '$statsCollected');
    for (let i = 0; i < 1_200; i++) {
      fake.record(`user-${i % 7}`, 'E', { i });
      if (i % 100 === 0) fake.record(`$$user-${i % 7}`, '$metadata');
    }
    const all = await store.readAll();
    expect(all).toHaveLength(1_200);
    expect(all.map((e) => (e.data as { i: number }).i)).toEqual([...Array(1_200).keys()]);

    const after = all[599]!.position;
    const rest = await store.readAll({ after });
    expect(rest).toHaveLength(600);
    expect(rest[0]!.data).toEqual({ i: 600 });

    const three = await store.readAll({ after: all[99]!.position, maxCount: 3 });
    // A `$metadata` event follows i=100 and is skipped without costing one of the three.
    expect(three.map((e) => (e.data as { i: number }).i)).toEqual([100, 101, 102]);
    expect(await store.readAll({ after: all.at(-1)!.position })).toEqual([]);
  });

  it('reports the newest product event as head, past trailing system events', async () => {
    const { fake, store } = setup();
    expect(await store.headPosition()).toEqual(START);
    fake.record('$stats-node', '$statsCollected');
    expect(await store.headPosition()).toEqual(START);
    const last = fake.record('user-1', 'E');
    for (let i = 0; i < 250; i++) fake.record('$stats-node', '$statsCollected');
    expect(await store.headPosition()).toEqual(last.position);
  });

  it('delivers a subscription in order, in bounded batches, one batch at a time, then live events', async () => {
    const { fake, store } = setup();
    for (let i = 0; i < 10; i++) {
      fake.record('user-1', 'E', { i });
      if (i === 4) fake.record('$$user-1', '$metadata');
    }
    const seen: number[] = [];
    const batchSizes: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const sub = store.subscribeToAll({
      after: (await store.readAll({ maxCount: 2 }))[1]!.position,
      maxBatchSize: 3,
      onEvents: async (events) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        batchSizes.push(events.length);
        await new Promise((r) => setTimeout(r, 5));
        seen.push(...events.map((e) => (e.data as { i: number }).i));
        inFlight--;
      },
    });
    await waitFor(() => seen.length === 8);
    expect(seen).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBe(1);

    await store.append('user-2', [newEvent('Live', { i: 10 })]);
    await waitFor(() => seen.length === 9);
    expect(seen.at(-1)).toBe(10);
    await sub.stop();
  });

  it('pauses the client stream while a batch is being handled', async () => {
    const { fake, store } = setup();
    for (let i = 0; i < 40; i++) fake.record('user-1', 'E', { i });
    const gate = deferred();
    let calls = 0;
    const sub = store.subscribeToAll({
      maxBatchSize: 5,
      onEvents: async () => {
        calls++;
        await gate.promise;
      },
    });
    await waitFor(() => calls === 1);
    const readable = fake.subscriptions[0]!;
    expect(readable.isPaused()).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBe(1);
    gate.resolve();
    await waitFor(() => calls === 8);
    await sub.stop();
  });

  it('calls onCaughtUp once, after every event before the server said caught up was handled', async () => {
    const { fake, store } = setup();
    for (let i = 0; i < 12; i++) fake.record('user-1', 'E', { i });
    let handled = 0;
    const handledAtCaughtUp: number[] = [];
    const sub = store.subscribeToAll({
      maxBatchSize: 2,
      onEvents: async (events) => {
        await new Promise((r) => setTimeout(r, 2));
        handled += events.length;
      },
      onCaughtUp: () => handledAtCaughtUp.push(handled),
    });
    await waitFor(() => handledAtCaughtUp.length === 1);
    expect(handledAtCaughtUp).toEqual([12]);
    await store.append('user-1', [newEvent()]);
    await waitFor(() => handled === 13);
    expect(handledAtCaughtUp).toEqual([12]);
    await sub.stop();
  });

  it('knows it caught up from the head position when the server sends no caughtUp (ESDB < 23.10)', async () => {
    const { fake, store } = setup();
    fake.sendCaughtUp = false;
    for (let i = 0; i < 5; i++) fake.record('user-1', 'E', { i });
    fake.record('$stats-node', '$statsCollected');
    let handled = 0;
    const onCaughtUp = vi.fn(() => expect(handled).toBe(5));
    const sub = store.subscribeToAll({
      onEvents: (events) => {
        handled += events.length;
      },
      onCaughtUp,
    });
    await waitFor(() => onCaughtUp.mock.calls.length === 1);
    await sub.stop();

    const empty = setup();
    empty.fake.sendCaughtUp = false;
    const emptyCaughtUp = vi.fn();
    const emptySub = empty.store.subscribeToAll({ onEvents: () => {}, onCaughtUp: emptyCaughtUp });
    await waitFor(() => emptyCaughtUp.mock.calls.length === 1);
    await emptySub.stop();
  });

  it('is caught up at once when subscribing after the head', async () => {
    const { fake, store } = setup();
    fake.sendCaughtUp = false;
    fake.record('user-1', 'E');
    const head = await store.headPosition();
    const onEvents = vi.fn();
    const onCaughtUp = vi.fn();
    const sub = store.subscribeToAll({ after: head, onEvents, onCaughtUp });
    await waitFor(() => onCaughtUp.mock.calls.length === 1);
    expect(onEvents).not.toHaveBeenCalled();
    await sub.stop();
  });

  it('stops on a rejected handler and reports it through onError', async () => {
    const { fake, store } = setup();
    for (let i = 0; i < 6; i++) fake.record('user-1', 'E', { i });
    const failure = new Error('projection failed');
    const onEvents = vi.fn(async () => {
      throw failure;
    });
    const onError = vi.fn();
    store.subscribeToAll({ maxBatchSize: 2, onEvents, onError });
    await waitFor(() => onError.mock.calls.length === 1);
    expect(onError).toHaveBeenCalledWith(failure);
    await new Promise((r) => setTimeout(r, 20));
    expect(onEvents).toHaveBeenCalledTimes(1);
    expect(fake.subscriptions[0]!.unsubscribed).toBe(true);
  });

  it('reports a lost connection as EventStoreUnavailableError', async () => {
    const { fake, store } = setup();
    const onError = vi.fn();
    store.subscribeToAll({ onEvents: () => {}, onError });
    fake.subscriptions[0]!.emit('error', new UnavailableError(undefined, 'connection lost'));
    await waitFor(() => onError.mock.calls.length === 1);
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(EventStoreUnavailableError);
  });

  it('stop() waits for the running handler and nothing is delivered afterwards', async () => {
    const { fake, store } = setup();
    for (let i = 0; i < 4; i++) fake.record('user-1', 'E', { i });
    const gate = deferred();
    const onEvents = vi.fn(async () => gate.promise);
    const sub = store.subscribeToAll({ maxBatchSize: 1, onEvents });
    await waitFor(() => onEvents.mock.calls.length === 1);
    let stopped = false;
    const stopping = sub.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    fake.record('user-1', 'E', { i: 99 });
    await new Promise((r) => setTimeout(r, 20));
    expect(onEvents).toHaveBeenCalledTimes(1);
    expect(fake.subscriptions[0]!.unsubscribed).toBe(true);
  });

  it('close() stops subscriptions, disposes the client and refuses further calls', async () => {
    const { fake, store } = setup();
    store.subscribeToAll({ onEvents: () => {} });
    await store.close();
    expect(fake.subscriptions[0]!.unsubscribed).toBe(true);
    expect(fake.disposed).toBe(1);
    await expect(store.readAll()).rejects.toThrow(/closed/);
  });
});

// The one port contract, run through the adapter over the fake client: proves the adapter's
// mappings satisfy every contract rule given the client's documented behaviour. The same suite
// against a real server is esdb.contract.test.ts.
describeEventStoreContract('EventStoreDB adapter over the in-memory fake client', async () => {
  const fake = new FakeEsdb();
  // $all on a real server is shared: foreign and system events must not disturb the suite.
  fake.record('$stats-127.0.0.1:2113', '$statsCollected');
  fake.record('foreign-stream', 'SomethingElse');
  return { open: async () => createEsdbEventStore(fake.asClient()), dispose: async () => {} };
});
