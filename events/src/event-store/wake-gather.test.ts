/**
 * A caught-up subscription woken by an append waits `wakeGatherMs` before reading, so appends
 * acknowledged meanwhile reach its handler together (one read, one projection batch) instead of
 * one by one; a subscription that is not woken still finds events by its poll.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchema, requireService, testPostgresUrl } from '../test-support/services';
import { newEvent } from '../test-support/event-store-contract';
import { eventually } from '../test-support/eventually';
import type { RecordedEvent } from './port';
import { openPostgresEventStore } from './postgres';
import type { SqlEventStore } from './sql/store';

const url = testPostgresUrl();
const reachable = await requireService('PostgreSQL wake gathering', url, 5432);

describe.skipIf(!reachable)('PostgreSQL event store: a woken subscription gathers the appends of its wait', () => {
  const schema = `es_wake_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  let store: SqlEventStore;

  beforeAll(async () => {
    // Wide enough that five appends 20 ms apart on a loaded CI machine still fall inside it.
    store = await openPostgresEventStore({ connectionString: url, schema, poolSize: 2, wakeGatherMs: 1_000 });
  });
  afterAll(async () => {
    await store?.close();
    await dropPostgresSchema(url, schema);
  });

  it('given a caught-up subscription, when five appends follow each other 20 ms apart, then its handler gets them in one call, in order', async () => {
    const calls: RecordedEvent[][] = [];
    let caughtUp = false;
    const subscription = store.subscribeToAll({ onEvents: (events) => void calls.push(events), onCaughtUp: () => (caughtUp = true) });
    try {
      await eventually(() => expect(caughtUp).toBe(true));
      const stream = `wake-${randomUUID()}`;
      const appended = [newEvent('One'), newEvent('Two'), newEvent('Three'), newEvent('Four'), newEvent('Five')];
      for (const [i, event] of appended.entries()) {
        await store.append(stream, [event], i === 0 ? 'no_stream' : i - 1);
        // Without gathering, each of these would long have been read and handled on its own.
        await new Promise((r) => setTimeout(r, 20));
      }

      await eventually(() => expect(calls.flat().map((e) => e.id)).toEqual(appended.map((e) => e.id)));
      expect(calls).toHaveLength(1);
    } finally {
      await subscription.stop();
    }
  });
});
