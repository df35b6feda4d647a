import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test-support/harness';
import { SIMULATED_ORDER_DEFAULTS, SimulatedPaymentProvider } from './simulated-provider';

const HOUR = 60 * 60_000;

describe('simulated provider: unpaid orders expire, memory stays bounded', () => {
  it('drops an order not captured within an hour: capture then fails like an unknown order', async () => {
    let t = 1_000_000;
    const provider = new SimulatedPaymentProvider({ now: () => t });
    expect(SIMULATED_ORDER_DEFAULTS.unpaidTtlMs).toBe(HOUR);
    const { orderId: late } = await provider.createOrder('u1', 5);
    const { orderId: inTime } = await provider.createOrder('u1', 5);
    t += HOUR - 1;
    await expect(provider.captureOrder(inTime)).resolves.toMatchObject({ status: 'COMPLETED', amountUsd: 5 });
    t += 1;
    expect(await provider.getOrder(late)).toBeNull();
    await expect(provider.captureOrder(late)).rejects.toMatchObject({ code: 'not_found', message: 'This payment order does not exist' });
    await expect(provider.captureOrder('SIM-unknown')).rejects.toMatchObject({ code: 'not_found', message: 'This payment order does not exist' });
    // The captured one is still there for a repeated capture or /api/buy-points.
    expect(await provider.getOrder(inTime)).toMatchObject({ status: 'COMPLETED' });
    expect(provider.size).toBe(1);
  });

  it('keeps a captured order a day, then forgets it', async () => {
    let t = 0;
    const provider = new SimulatedPaymentProvider({ now: () => t });
    const { orderId } = await provider.createOrder('u1', 1);
    t += HOUR / 2;
    const capture = await provider.captureOrder(orderId);
    t += SIMULATED_ORDER_DEFAULTS.capturedTtlMs - 1;
    expect(await provider.getCapture(capture.captureId)).toMatchObject({ status: 'COMPLETED' });
    t += 1;
    expect(await provider.getCapture(capture.captureId)).toBeNull();
    expect(await provider.getOrder(orderId)).toBeNull();
  });

  it('sweeps expired orders on creation and never holds more than the cap (oldest dropped first)', async () => {
    let t = 0;
    const provider = new SimulatedPaymentProvider({ now: () => t, maxOrders: 5 });
    for (let i = 0; i < 4; i++) await provider.createOrder('u1', 1);
    t += HOUR;
    await provider.createOrder('u1', 1);
    expect(provider.size).toBe(1);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await provider.createOrder('u2', 1)).orderId);
    expect(provider.size).toBe(5);
    expect(await provider.getOrder(ids[0]!)).toBeNull();
    expect(await provider.getOrder(ids[19]!)).toMatchObject({ status: 'CREATED', userId: 'u2' });
  });
});

describe('capturing an expired test-mode order over HTTP', () => {
  let h: Harness;
  let t = Date.parse('2026-01-01T10:00:00Z');
  const provider = new SimulatedPaymentProvider({ now: () => t });
  beforeAll(async () => {
    h = await startHarness({ adapters: { payments: provider } });
  });
  afterAll(() => h.close());

  it('answers like an unknown order (a 4xx with a message) and credits nothing', async () => {
    const b = h.browser();
    expect((await b.request('POST', '/api/register-user', { email: 'expiring@example.com', password: 'pass1' })).status).toBe(201);
    const { body: order } = await b.request('POST', '/api/payments/orders', { amountUsd: 5 });
    t += HOUR;
    const expired = await b.request('POST', `/api/payments/orders/${order.orderId}/capture`);
    const unknown = await b.request('POST', '/api/payments/orders/SIM-unknown/capture');
    expect(expired.status).toBeGreaterThanOrEqual(400);
    expect(expired.status).toBeLessThan(500);
    expect({ status: expired.status, body: expired.body }).toEqual({ status: unknown.status, body: unknown.body });
    expect(expired.body).toEqual({ error: 'This payment order does not exist' });
    // A new order works as before.
    const { body: again } = await b.request('POST', '/api/payments/orders', { amountUsd: 5 });
    expect((await b.request('POST', `/api/payments/orders/${again.orderId}/capture`)).status).toBe(200);
  });
});
