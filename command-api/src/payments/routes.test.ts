import { streams } from '@pass/events';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Browser, type Harness } from '../test-support/harness';
import { joinedMember } from '../test-support/members';
import { createPaymentProvider } from './provider/factory';
import type { SimulatedPaymentProvider } from './provider/simulated-provider';

/** The Payments routes over real HTTP with the simulated (test-mode) provider, PGlite in memory. */
let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function member(): Promise<{ b: Browser; id: string }> {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: `buyer${++n}@example.com`, password: 'pass1' });
  return { b, id: res.body.id as string };
}

const joined = () => joinedMember(h);

async function purchased(userId: string) {
  return (await h.store.readStream(streams.user(userId))).filter((e) => e.type === 'PointsPurchased');
}

describe('GET /api/payments/config', () => {
  it('tells the web app which buttons to show: simulated, labelled test mode, no client id', async () => {
    const res = await h.browser().request('GET', '/api/payments/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ provider: 'simulated', testMode: true, clientId: null, currency: 'USD' });
  });
});

describe('simulated checkout: order → capture', () => {
  it('credits the option the order was created for, whatever the client sends', async () => {
    const { b, id } = await member();
    const order = await b.request('POST', '/api/payments/orders', { amountUsd: 20, points: 999_999 });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ provider: 'simulated', testMode: true });
    const res = await b.request('POST', `/api/payments/orders/${order.body.orderId}/capture`, { amountUsd: 1000 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', points: 2000, user: { chatCount: 2010, buyed: 20 } });
    const [event] = await purchased(id);
    expect(event?.data).toMatchObject({ provider: 'simulated', orderId: order.body.orderId, amountUsd: 20, points: 2000 });
    expect((event?.data as { captureId: string }).captureId).toMatch(/^SIMCAP-/);
  });

  it('a repeated capture credits once and answers the same result, also when the calls are concurrent', async () => {
    const { b, id } = await member();
    const { body: order } = await b.request('POST', '/api/payments/orders', { amountUsd: 5 });
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => b.request('POST', `/api/payments/orders/${order.orderId}/capture`)));
    const again = await b.request('POST', `/api/payments/orders/${order.orderId}/capture`);
    for (const res of [...concurrent, again]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'COMPLETED', points: 500, user: { chatCount: 510, buyed: 5 } });
    }
    // The spec's helper after the capture: same answer, nothing more credited.
    const helper = await b.request('POST', '/api/buy-points', { orderId: order.orderId, amount: 5, email: 'ignored@example.com' });
    expect(helper.status).toBe(200);
    expect(helper.body.points).toBe(500);
    expect(await purchased(id)).toHaveLength(1);
  });

  it('refuses prices outside the nine options, guests, and captures by another member', async () => {
    const { b, id } = await member();
    const bad = await b.request('POST', '/api/payments/orders', { amountUsd: 7 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Choose one of the purchase options: $1, $5, $10, $20, $30, $50, $100, $500, $1,000');
    expect((await b.request('POST', '/api/payments/orders', {})).status).toBe(400);
    expect((await h.browser().request('POST', '/api/payments/orders', { amountUsd: 1 })).status).toBe(401);

    const { body: order } = await b.request('POST', '/api/payments/orders', { amountUsd: 1 });
    const thief = await member();
    const stolen = await thief.b.request('POST', `/api/payments/orders/${order.orderId}/capture`);
    expect(stolen.status).toBe(402);
    expect(stolen.body.error).toBe('This payment belongs to another member');
    expect((await thief.b.request('POST', '/api/payments/orders/SIM-unknown/capture')).status).toBe(402);
    expect(await purchased(thief.id)).toEqual([]);
    expect(await purchased(id)).toEqual([]);
  });
});

describe('POST /api/buy-points follows the same rule', () => {
  it('refuses an order that is not captured yet, and an order of another member', async () => {
    const { b, id } = await member();
    const { body: order } = await b.request('POST', '/api/payments/orders', { amountUsd: 10 });
    const early = await b.request('POST', '/api/buy-points', { orderId: order.orderId, amount: 10 });
    expect(early.status).toBe(402);
    expect(early.body.error).toBe('This payment has not been completed');

    expect((await b.request('POST', `/api/payments/orders/${order.orderId}/capture`)).status).toBe(200);
    const thief = await member();
    const foreign = await thief.b.request('POST', '/api/buy-points', { orderId: order.orderId });
    expect(foreign.status).toBe(402);
    expect(foreign.body.error).toBe('This payment belongs to another member');
    expect(await purchased(thief.id)).toEqual([]);
    expect(await purchased(id)).toHaveLength(1);
  });
});

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

describe('webhooks in test mode', () => {
  it('nothing is signed by a provider: 400, nothing appended', async () => {
    const { b, id } = await member();
    const { body: order } = await b.request('POST', '/api/payments/orders', { amountUsd: 1 });
    const { body: captured } = await b.request('POST', `/api/payments/orders/${order.orderId}/capture`);
    expect(captured.points).toBe(100);
    const res = await h.browser().request('POST', '/api/payments/webhooks/paypal', {
      event_type: 'PAYMENT.CAPTURE.REVERSED',
      resource: { id: 'SIMCAP-x', custom_id: id },
    });
    expect(res.status).toBe(400);
    expect((await h.store.readStream(streams.user(id))).some((e) => e.type === 'PurchaseReversed')).toBe(false);
  });
});

describe('provider factory', () => {
  const logger = pino({ level: 'silent' });

  it('refuses the simulated provider in production', () => {
    expect(() => createPaymentProvider({ provider: 'simulated', nodeEnv: 'production' }, logger)).toThrow(/refused when NODE_ENV=production/);
    expect(createPaymentProvider({ provider: 'simulated', nodeEnv: 'development' }, logger).testMode).toBe(true);
  });

  it('PayPal needs its credentials; production PayPal is not test mode', () => {
    expect(() => createPaymentProvider({ provider: 'paypal' }, logger)).toThrow(/PAYPAL_CLIENT_ID/);
    const live = createPaymentProvider(
      { provider: 'paypal', nodeEnv: 'production', paypal: { clientId: 'id', clientSecret: 'secret', environment: 'production' } },
      logger,
    );
    expect(live).toMatchObject({ provider: 'paypal', testMode: false, clientId: 'id' });
  });
});
