import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { streams, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { CommandHandler } from '../kernel/command-handler';
import { isDomainError } from '@pass/events';
import { userDecider } from '../members/decider';
import { claimPasses } from './claim';
import { poolDecider } from '../passes-pool/decider';
import { freePasses } from '../passes-pool/state';
import { PassReservationReconciler, RECONCILE_AFTER_MS } from './reconciler';
import { memberWithPoints, testContext } from '../test-support/handler-fixtures';

const logger = pino({ level: 'silent' });
let store: EventStore;
let handler: CommandHandler;
let nowMs = Date.parse('2026-03-01T12:00:00.000Z');
const clock = () => new Date(nowMs);
const ctx = () => testContext(clock());
const member = (points: number) => memberWithPoints(handler, points, clock);

async function supply(available: number) {
  await handler.handle(poolDecider, streams.passesPool, { type: 'SetPassSupply', data: { available, setBy: 'admin' }, now: clock() }, ctx());
}

beforeEach(async () => {
  store = await openPgliteEventStore();
  handler = new CommandHandler({ eventStore: store, logger });
});
afterEach(async () => {
  await store.close();
});

describe('claiming passes', () => {
  it('200 concurrent claims at a pool with 50 passes left hand out exactly 50, and spend points only for those', async () => {
    await supply(50);
    const users = await Promise.all(Array.from({ length: 200 }, () => member(110)));
    const outcomes = await Promise.allSettled(users.map((u) => claimPasses({ handler, logger, clock }, u, 1, ctx())));

    const won = outcomes.filter((o) => o.status === 'fulfilled').length;
    const lost = outcomes.filter((o) => o.status === 'rejected');
    expect(won).toBe(50);
    expect(lost.every((o) => isDomainError(o.reason, 'passes_unavailable'))).toBe(true);

    // Read everything back from the store, not from the cache.
    const fresh = new CommandHandler({ eventStore: store, logger });
    const { state: pool } = await fresh.load(poolDecider, streams.passesPool);
    expect(pool.available).toBe(0);
    expect(pool.pending.size).toBe(0);
    const states = await Promise.all(users.map((u) => fresh.load(userDecider, streams.user(u)).then((r) => r.state)));
    expect(states.reduce((sum, state) => sum + state.passes, 0)).toBe(50);
    expect(states.filter((state) => state.passes === 1).every((state) => state.points === 90 && state.priority === 'normalUser')).toBe(true);
    expect(states.filter((state) => state.passes === 0).every((state) => state.points === 110 && state.priority === '')).toBe(true);
  });

  it('refuses a member without the points before reserving anything', async () => {
    await supply(10);
    const poor = await member(10);
    await expect(claimPasses({ handler, logger, clock }, poor, 1, ctx())).rejects.toMatchObject({ code: 'insufficient_points' });
    const { state: pool } = await handler.load(poolDecider, streams.passesPool);
    expect(freePasses(pool)).toBe(10);
    expect(pool.pending.size).toBe(0);
  });

  it('releases the reservation when the member stream refuses the claim', async () => {
    await supply(10);
    const userId = await member(30);
    // Another request spends the points between the early check and the record step.
    const racing = new CommandHandler({ eventStore: store, logger });
    const claim = claimPasses({ handler, logger, clock }, userId, 1, ctx());
    for (let i = 0; i < 30; i++) {
      await racing.handle(userDecider, streams.user(userId), { type: 'SendChatMessage', data: { userId, messageId: randomUUID(), message: 'hi' }, now: clock() }, ctx()).catch(() => undefined);
    }
    await claim.catch(() => undefined);
    const { state: pool } = await new CommandHandler({ eventStore: store, logger }).load(poolDecider, streams.passesPool);
    const { state: user } = await new CommandHandler({ eventStore: store, logger }).load(userDecider, streams.user(userId));
    expect(pool.pending.size).toBe(0);
    expect(pool.available + user.passes).toBe(10);
    expect(user.points).toBeGreaterThanOrEqual(0);
  });
});

/** The real store, except that appends to member streams fail: the process "dies" between the two appends. */
function crashingOnUserAppend(inner: EventStore): EventStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'append') {
        return (streamId: string, ...rest: Parameters<EventStore['append']> extends [string, ...infer R] ? R : never) => {
          if (streamId.startsWith('user-')) return Promise.reject(new Error('simulated crash'));
          return target.append(streamId, ...rest);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('reconciler', () => {
  it('releases a reservation whose claim never reached the member stream (crash between the appends)', async () => {
    await supply(5);
    const userId = await member(110);
    const crashing = new CommandHandler({ eventStore: crashingOnUserAppend(store), logger });
    await expect(claimPasses({ handler: crashing, logger, clock }, userId, 2, ctx())).rejects.toThrow('simulated crash');

    // A restarted process: nothing cached.
    const restarted = new CommandHandler({ eventStore: store, logger });
    const reconciler = new PassReservationReconciler({ handler: restarted, logger, clock });
    expect(await reconciler.runOnce()).toEqual({ confirmed: 0, released: 0, waiting: 1 });
    nowMs += RECONCILE_AFTER_MS + 1;
    expect(await reconciler.runOnce()).toEqual({ confirmed: 0, released: 1, waiting: 0 });

    const { state: pool } = await restarted.load(poolDecider, streams.passesPool);
    const { state: user } = await restarted.load(userDecider, streams.user(userId));
    expect(pool.pending.size).toBe(0);
    expect(freePasses(pool)).toBe(5);
    expect(user).toMatchObject({ passes: 0, points: 110 });
    // Too late to record the claim now: the member cannot get passes the pool gave back.
    await expect(claimPasses({ handler: restarted, logger, clock }, userId, 5, ctx())).resolves.toMatchObject({ passes: 5 });
  });

  it('confirms a reservation whose claim was recorded but not confirmed', async () => {
    await supply(5);
    const userId = await member(110);
    const reservationId = randomUUID();
    // Steps 1 and 2 of a claim, then the process dies before step 3.
    const reserved = await handler.handle(poolDecider, streams.passesPool, { type: 'ReservePasses', data: { reservationId, userId, passes: 2 }, now: clock() }, ctx());
    expect(reserved.events).toHaveLength(1);
    await handler.handle(userDecider, streams.user(userId), { type: 'RecordPassesClaim', data: { userId, reservationId, passes: 2, reservedAt: clock().toISOString() }, now: clock() }, ctx());

    const restarted = new CommandHandler({ eventStore: store, logger });
    const report = await new PassReservationReconciler({ handler: restarted, logger, clock }).runOnce();
    expect(report).toEqual({ confirmed: 1, released: 0, waiting: 0 });
    const { state: pool } = await restarted.load(poolDecider, streams.passesPool);
    expect(pool.pending.size).toBe(0);
    expect(pool.available).toBe(3);
  });

  it('a late record of an abandoned reservation is refused by the member stream', async () => {
    await supply(5);
    const userId = await member(110);
    const reservationId = randomUUID();
    const reservedAt = clock().toISOString();
    await handler.handle(poolDecider, streams.passesPool, { type: 'ReservePasses', data: { reservationId, userId, passes: 2 }, now: clock() }, ctx());
    nowMs += RECONCILE_AFTER_MS + 1;
    await new PassReservationReconciler({ handler, logger, clock }).runOnce();
    await expect(
      handler.handle(userDecider, streams.user(userId), { type: 'RecordPassesClaim', data: { userId, reservationId, passes: 2, reservedAt }, now: clock() }, ctx()),
    ).rejects.toMatchObject({ code: 'reservation_expired' });
  });
});
