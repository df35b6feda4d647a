import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../test-support/harness';
import { joinedMember } from '../test-support/members';
import type { SimulatedPaymentProvider } from './provider/simulated-provider';

let h: Harness;
const nowMs = Date.parse('2026-05-01T09:00:00.000Z');
const clock = () => new Date(nowMs);

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(async () => {
  await h?.close();
});

let n = 0;
const email = () => `member${++n}@example.com`;
const joined = (address = email(), password = 'pass1') => joinedMember(h, address, password);

describe('POST /api/buy-points', () => {
  it('credits a captured order once, from the provider record only', async () => {
    const { b, user } = await joined();
    const provider = h.api.payments as SimulatedPaymentProvider;
    const { orderId } = await provider.createOrder(user.id, 5);
    const notYet = await b.request('POST', '/api/buy-points', { orderId, amount: 1000, email: 'x' });
    expect(notYet.status).toBe(402);
    await provider.captureOrder(orderId);
    // The client's amount is ignored: the captured 5 USD buy 500 points.
    const res = await b.request('POST', '/api/buy-points', { orderId, amount: 1000 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', points: 500, user: { chatCount: 510, buyed: 5 } });
    // Credited once; a repeated call answers the same result (the checkout's capture, then this helper).
    const again = await b.request('POST', '/api/buy-points', { orderId });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'COMPLETED', points: 500, user: { chatCount: 510, buyed: 5 } });
  });

  it('refuses an order made for another member, and guests', async () => {
    const { user } = await joined();
    const thief = await joined();
    const provider = h.api.payments as SimulatedPaymentProvider;
    const { orderId } = await provider.createOrder(user.id, 1);
    await provider.captureOrder(orderId);
    expect((await thief.b.request('POST', '/api/buy-points', { orderId })).status).toBe(402);
    expect((await h.browser().request('POST', '/api/buy-points', { orderId })).status).toBe(401);
  });
});
