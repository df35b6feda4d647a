import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { streams, type CommandContext, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { CommandHandler } from './kernel/command-handler';
import { poolDecider } from './passes-pool/decider';
import { RECONCILE_AFTER_MS } from './passes/reconciler';
import type { SimulatedPaymentProvider } from './payments/provider/simulated-provider';
import { startHarness, testEmailStream } from './test-support/harness';
import { userDecider } from './members/decider';
import { emailDecider } from './members/email-decider';
import { ORPHAN_RESERVATION_MS } from './members/join';

const logger = pino({ level: 'silent' });
let store: EventStore;
let nowMs = Date.parse('2026-04-01T08:00:00.000Z');
const clock = () => new Date(nowMs);
const ctx = (): CommandContext => ({ correlationId: randomUUID(), causationId: randomUUID(), actor: { type: 'system', id: 'test' }, now: clock() });

beforeEach(async () => {
  store = await openPgliteEventStore();
});
afterEach(async () => {
  await store.close();
});

describe('repairs after a crash', () => {
  it('the next join completes a registration whose process died between its two appends', async () => {
    // A process reserved the e-mail, then died before recording the member.
    const crashed = new CommandHandler({ eventStore: store, logger });
    const userId = randomUUID();
    await crashed.handle(emailDecider, testEmailStream('orphan@example.com'), { type: 'ReserveEmail', data: { email: 'orphan@example.com', userId }, now: clock() }, ctx());

    const h = await startHarness({ store, clock });
    try {
      // Too recent to be an orphan: it might still be in flight.
      const early = await h.browser().request('POST', '/api/register-user', { email: 'orphan@example.com', password: 'pass1' });
      expect(early.status).toBe(409);
      nowMs += ORPHAN_RESERVATION_MS + 1;
      const res = await h.browser().request('POST', '/api/register-user', { email: 'orphan@example.com', password: 'pass1' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: userId, email: 'orphan@example.com', chatCount: 10, registered: true });
      const login = await h.browser().request('POST', '/api/register-user', { email: 'orphan@example.com', password: 'pass1' });
      expect(login.body).toMatchObject({ id: userId, registered: false });
    } finally {
      await h.close();
    }
  });

  it('the reconciler repairs half-done claims when the command API starts', async () => {
    const before = new CommandHandler({ eventStore: store, logger });
    const userId = randomUUID();
    await before.handle(userDecider, streams.user(userId), { type: 'RegisterUser', data: { userId, email: 'c@example.com', passwordHash: 'x' }, now: clock() }, ctx());
    await before.handle(poolDecider, streams.passesPool, { type: 'SetPassSupply', data: { available: 5, setBy: 'admin' }, now: clock() }, ctx());
    await before.handle(poolDecider, streams.passesPool, { type: 'ReservePasses', data: { reservationId: 'r-dead', userId, passes: 3 }, now: clock() }, ctx());
    nowMs += RECONCILE_AFTER_MS + 1;

    const h = await startHarness({ store, clock });
    try {
      await h.api.reconciler.runOnce(); // the start-up run, awaited here
      const { state } = await new CommandHandler({ eventStore: store, logger }).load(poolDecider, streams.passesPool);
      expect(state.pending.size).toBe(0);
      expect(state.available).toBe(5);
      expect((await store.readStream(streams.passesPool)).at(-1)).toMatchObject({ type: 'PassReservationReleased', data: { reason: 'abandoned' } });
    } finally {
      await h.close();
    }
  });
});

describe('purchases facade for the Payments routes', () => {
  it('credits a capture and takes it back on a refund, once each', async () => {
    const h = await startHarness({ store, clock });
    try {
      const b = h.browser();
      const { body: user } = await b.request('POST', '/api/register-user', { email: 'refund@example.com', password: 'pass1' });
      const provider = h.api.payments as SimulatedPaymentProvider;
      const { orderId } = await provider.createOrder(user.id, 10);
      const capture = await provider.captureOrder(orderId);
      const credited = await h.api.purchases.creditCapturedOrder(user.id, orderId, ctx());
      expect(credited).toMatchObject({ points: 1000, user: { chatCount: 1010, buyed: 10 } });
      const reversed = await h.api.purchases.reverse(user.id, capture.captureId, 'refunded', ctx());
      expect(reversed).toMatchObject({ chatCount: 10, buyed: 0 });
      await expect(h.api.purchases.reverse(user.id, capture.captureId, 'refunded', ctx())).resolves.toMatchObject({ chatCount: 10 });
      expect((await store.readStream(streams.user(user.id))).filter((e) => e.type === 'PurchaseReversed')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
