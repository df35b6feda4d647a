import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { streams, type EventStore, type RecordedEvent, type SubscribeToAllOptions } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createMemoryReadModels, createProjector, createRedisReadModels, deleteKeysUnder, projectInto, toPositioned, type Keyspace } from '@pass/projector';
import { pino } from 'pino';
import { appendEvents } from '@pass/projector/test-support';
import { generateEvents } from '@pass/projector/test-support';
import { startHarness } from '@pass/command-api/test-support';
import { faultTally } from './tally';

/**
 * Duplicate and out-of-order deliveries. The projector's subscription delivers batches in order,
 * but a restart, a retried batch or a second projector can hand the read models a batch again,
 * or an older one after a newer one; each must leave the read models as a clean pass would.
 * Commands retried by a client (same x-request-id) must not apply twice where the product
 * promises it: a free point (once per 30 s) and a payment capture (once per capture id).
 */
const redisUp = await requireService('infra faults: duplicate deliveries (Redis)', testRedisUrl(), 6379);
const tally = faultTally('duplicate and out-of-order deliveries');
const BATCH = 150;

let recorded: RecordedEvent[] = [];
let store: EventStore | undefined;
const roots: string[] = [];
const redis = redisUp ? new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 }) : undefined;

async function events(): Promise<RecordedEvent[]> {
  if (recorded.length > 0) return recorded;
  store = await openPgliteEventStore();
  const total = await appendEvents(store, generateEvents({ users: 150, seed: 7 }));
  recorded = await store.readAll({ maxCount: total + 10 });
  expect(recorded).toHaveLength(total);
  return recorded;
}

const batches = (all: RecordedEvent[]) => Array.from({ length: Math.ceil(all.length / BATCH) }, (_, i) => all.slice(i * BATCH, (i + 1) * BATCH));

function keyspaces(kind: 'memory' | 'redis'): { faulty: Keyspace; clean: Keyspace } {
  if (kind === 'memory') return { faulty: createMemoryReadModels().keyspace('ks0'), clean: createMemoryReadModels().keyspace('ks0') };
  const a = `test:faults:${randomUUID()}`;
  const b = `test:faults:${randomUUID()}`;
  roots.push(a, b);
  return { faulty: createRedisReadModels({ redis: redis!, root: a }).keyspace('ks0'), clean: createRedisReadModels({ redis: redis!, root: b }).keyspace('ks0') };
}

async function cleanPass(clean: Keyspace, all: RecordedEvent[]) {
  for (const b of batches(all)) await projectInto(clean, toPositioned(b));
  return clean.dump();
}

afterAll(async () => {
  if (redis) {
    for (const root of roots) await deleteKeysUnder(redis, root);
    redis.disconnect();
  }
  await store?.close();
});

const kinds = ['memory', ...(redisUp ? ['redis' as const] : [])] as const;

describe.each(kinds)('projection deliveries into %s read models', (kind) => {
  it('every batch delivered twice: the second delivery changes nothing', async () => {
    const all = await events();
    const { faulty, clean } = keyspaces(kind);
    let reapplied = 0;
    for (const b of batches(all)) {
      await projectInto(faulty, toPositioned(b));
      const again = await projectInto(faulty, toPositioned(b));
      reapplied += again.applied;
    }
    expect(reapplied).toBe(0);
    const got = await faulty.dump();
    expect(got).toEqual(await cleanPass(clean, all));
    tally.note('events redelivered', all.length);
  });

  it('an older batch after a newer one, and a batch overlapping the checkpoint: only the new part counts', async () => {
    const all = await events();
    const { faulty, clean } = keyspaces(kind);
    const list = batches(all);
    let stale = 0;
    for (let i = 0; i < list.length; i++) {
      await projectInto(faulty, toPositioned(list[i]!));
      // Older batches arrive late, newest-first: nothing is applied again.
      for (let j = i - 1; j >= Math.max(0, i - 3); j--) stale += (await projectInto(faulty, toPositioned(list[j]!))).applied;
    }
    expect(stale).toBe(0);
    expect(await faulty.dump()).toEqual(await cleanPass(clean, all));

    // A batch straddling the checkpoint (a retry after a partial read): the old half is skipped.
    const { faulty: second, clean: secondClean } = keyspaces(kind);
    const half = Math.floor(BATCH / 2);
    let applied = 0;
    for (let start = 0; start < all.length; start += BATCH) {
      applied += (await projectInto(second, toPositioned(all.slice(Math.max(0, start - half), start + BATCH)))).applied;
    }
    expect(applied).toBe(all.length);
    expect(await second.dump()).toEqual(await cleanPass(secondClean, all));
    tally.note('events redelivered', stale === 0 ? all.length : 0);
  });
});

/** The store, with a subscription that hands every batch over twice, the previous one in between. */
function stuttering(store: EventStore): { store: EventStore; redelivered: () => number } {
  let redelivered = 0;
  const wrapped: EventStore = Object.create(store) as EventStore;
  wrapped.subscribeToAll = (options: SubscribeToAllOptions) => {
    let previous: RecordedEvent[] | undefined;
    return store.subscribeToAll({
      ...options,
      maxBatchSize: 97,
      onEvents: async (events) => {
        await options.onEvents(events);
        if (previous) {
          await options.onEvents(previous);
          redelivered += previous.length;
        }
        await options.onEvents(events);
        redelivered += events.length;
        previous = events;
      },
    });
  };
  return { store: wrapped, redelivered: () => redelivered };
}

describe('the live projector fed a stuttering subscription', () => {
  it.each(kinds)('into %s read models: equal to a clean pass, no restart', async (kind) => {
    const all = await events();
    const { store: source, redelivered } = stuttering(store!);
    const root = `test:faults:${randomUUID()}`;
    roots.push(root);
    const readModels = kind === 'memory' ? createMemoryReadModels() : createRedisReadModels({ redis: redis!, root });
    const projector = createProjector({ eventStore: source, readModels, logger: pino({ level: 'silent' }) });
    await projector.start();
    await projector.settled();
    const status = await projector.status();
    await projector.stop();
    expect(status.lastError).toBeNull();
    expect(status.eventsProjected).toBe(all.length);
    expect(redelivered()).toBeGreaterThan(all.length);
    const { clean } = keyspaces(kind);
    expect(await projector.keyspace.dump()).toEqual(await cleanPass(clean, all));
    tally.note('events redelivered', redelivered());
  });
});

describe('command retries (same x-request-id)', () => {
  it('a free point retried after a lost answer and a capture retried credit once', async () => {
    const h = await startHarness();
    try {
      const member = h.browser();
      const joined = await member.request('POST', '/api/register-user', { email: 'retry@example.com', password: 'pass1' });
      expect([200, 201]).toContain(joined.status);
      const userId: string = joined.body.id;
      // The same request sent again (a client retrying after a lost answer), same x-request-id.
      const requestId = `retry-${randomUUID()}`;
      const cookie = [...member.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      // The countdown's ticket, as if issued when it started 29 s ago.
      const body = JSON.stringify({ ticket: h.adViewTicket(userId) });
      const send = () =>
        fetch(`${h.url}/api/free-point`, { method: 'POST', headers: { cookie, 'x-request-id': requestId, 'content-type': 'application/json' }, body }).then((r) => r.status);
      expect(await send()).toBe(200);
      expect(await Promise.all(Array.from({ length: 5 }, send))).toEqual([409, 409, 409, 409, 409]);

      const { body: order } = await member.request('POST', '/api/payments/orders', { amountUsd: 5 });
      const captures = await Promise.all(Array.from({ length: 4 }, () => member.request('POST', `/api/payments/orders/${order.orderId}/capture`)));
      expect(captures.every((c) => c.status === 200)).toBe(true);

      const stream = await h.store.readStream(streams.user(userId));
      const awarded = stream.filter((e) => e.type === 'FreePointAwarded');
      const purchased = stream.filter((e) => e.type === 'PointsPurchased');
      expect(awarded).toHaveLength(1);
      expect(awarded[0]!.metadata.correlationId).toBe(requestId);
      expect(purchased).toHaveLength(1);
      tally.lost(0);
    } finally {
      await h.close();
    }
  });
});
