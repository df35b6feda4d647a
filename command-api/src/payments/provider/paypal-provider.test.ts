import { streams } from '@pass/events';
import nock from 'nock';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Browser, type Harness } from '../../test-support/harness';
import { createPaymentProvider } from './factory';

/**
 * The PayPal adapter against PayPal's HTTP API as nock replays it on the sandbox host, through
 * the command API over real HTTP (PGlite in memory). No request leaves the machine.
 */
// nock 15 intercepts through @mswjs/interceptors, which calls Promise.withResolvers (Node >= 22);
// this project runs on Node 20, so the test supplies the standard method when it is missing.
if (!('withResolvers' in Promise)) {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>() {
      let resolve!: (value: T) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

const PAYPAL = 'https://api-m.sandbox.paypal.com';
const WEBHOOK_ID = 'WH-TEST-1';
const TIMEOUT_MS = 400;

let h: Harness;
let n = 0;

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  const paypal = { clientId: 'client-id', clientSecret: 'client-secret', environment: 'sandbox' as const, webhookId: WEBHOOK_ID, timeoutMs: TIMEOUT_MS };
  h = await startHarness({ adapters: { payments: createPaymentProvider({ provider: 'paypal', paypal }, pino({ level: 'silent' })) } });
});

afterAll(async () => {
  await h.close();
  nock.cleanAll();
  nock.enableNetConnect();
});

beforeEach(() => {
  // The SDK asks for an OAuth token once and reuses it until it expires.
  nock(PAYPAL).post('/v1/oauth2/token').reply(200, { access_token: 'A21-token', token_type: 'Bearer', expires_in: 32400 }).persist();
});

afterEach(() => {
  const pending = nock.pendingMocks().filter((m) => !m.includes('/v1/oauth2/token'));
  nock.cleanAll();
  expect(pending).toEqual([]);
});

async function member(): Promise<{ b: Browser; id: string }> {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: `paypal${++n}@example.com`, password: 'pass1' });
  expect(res.status).toBe(201);
  return { b, id: res.body.id as string };
}

async function purchases(userId: string) {
  return (await h.store.readStream(streams.user(userId))).filter((e) => e.type === 'PointsPurchased' || e.type === 'PurchaseReversed');
}

/** An order as PayPal's GET /v2/checkout/orders/:id answers it. */
function order(id: string, userId: string, optionUsd: number, capture?: { id: string; status: string; value: string; currency?: string }) {
  return {
    id,
    intent: 'CAPTURE',
    status: capture ? 'COMPLETED' : 'APPROVED',
    purchase_units: [
      {
        reference_id: `option-usd-${optionUsd}`,
        custom_id: userId,
        amount: { currency_code: 'USD', value: optionUsd.toFixed(2) },
        ...(capture
          ? {
              payments: {
                captures: [
                  { id: capture.id, status: capture.status, amount: { currency_code: capture.currency ?? 'USD', value: capture.value }, custom_id: userId },
                ],
              },
            }
          : {}),
      },
    ],
  };
}

describe('create order', () => {
  it('sends intent CAPTURE, one purchase unit in USD with the price and description of the server table', async () => {
    const { b, id } = await member();
    let sent: Record<string, unknown> | undefined;
    nock(PAYPAL)
      .post('/v2/checkout/orders', (body: unknown) => {
        if (body && typeof body === 'object') sent = body as Record<string, unknown>;
        return true;
      })
      .matchHeader('authorization', 'Bearer A21-token')
      .reply(201, { id: 'ORDER-10', status: 'CREATED' });
    const res = await b.request('POST', '/api/payments/orders', { amountUsd: 10, value: '0.01' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ orderId: 'ORDER-10', provider: 'paypal', testMode: true });
    expect(sent).toEqual({
      intent: 'CAPTURE',
      purchase_units: [
        {
          reference_id: 'option-usd-10',
          custom_id: id,
          description: '1,000 Freedom Pass points, exchangable for 50 passes or 1,000 messages in the global chat',
          amount: { currency_code: 'USD', value: '10.00' },
        },
      ],
    });
  });

  it('refuses a price that is not one of the nine options, without asking PayPal', async () => {
    const { b } = await member();
    for (const amountUsd of [2, 0.5, -1, '10']) {
      const res = await b.request('POST', '/api/payments/orders', { amountUsd });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Choose one of the purchase options: $1, $5, $10, $20, $30, $50, $100, $500, $1,000');
    }
  });
});

describe('capture', () => {
  it('credits a COMPLETED capture of the right amount once: order id, capture id, USD, points', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-A').reply(200, order('ORDER-A', id, 10));
    nock(PAYPAL)
      .post('/v2/checkout/orders/ORDER-A/capture')
      .matchHeader('paypal-request-id', 'capture-ORDER-A')
      .reply(201, order('ORDER-A', id, 10, { id: 'CAP-A', status: 'COMPLETED', value: '10.00' }));
    const res = await b.request('POST', '/api/payments/orders/ORDER-A/capture');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', points: 1000, user: { chatCount: 1010, buyed: 10 } });
    const events = await purchases(id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ provider: 'paypal', orderId: 'ORDER-A', captureId: 'CAP-A', amountUsd: 10, points: 1000 });
  });

  it('a duplicate capture call answers the same result and credits nothing more', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-D').reply(200, order('ORDER-D', id, 5));
    nock(PAYPAL).post('/v2/checkout/orders/ORDER-D/capture').reply(201, order('ORDER-D', id, 5, { id: 'CAP-D', status: 'COMPLETED', value: '5.00' }));
    const first = await b.request('POST', '/api/payments/orders/ORDER-D/capture');
    // The retry finds the order captured: no second capture at PayPal.
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-D').reply(200, order('ORDER-D', id, 5, { id: 'CAP-D', status: 'COMPLETED', value: '5.00' }));
    const again = await b.request('POST', '/api/payments/orders/ORDER-D/capture');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // And the spec's buy-points helper after it: same answer.
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-D').reply(200, order('ORDER-D', id, 5, { id: 'CAP-D', status: 'COMPLETED', value: '5.00' }));
    expect((await b.request('POST', '/api/buy-points', { orderId: 'ORDER-D' })).body).toEqual(first.body);
    expect(await purchases(id)).toHaveLength(1);
  });

  it('PayPal answering ORDER_ALREADY_CAPTURED (a concurrent capture won) reads the capture back, credited once', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-R').reply(200, order('ORDER-R', id, 1));
    nock(PAYPAL)
      .post('/v2/checkout/orders/ORDER-R/capture')
      .reply(422, { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed', debug_id: 'x', details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] });
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-R').reply(200, order('ORDER-R', id, 1, { id: 'CAP-R', status: 'COMPLETED', value: '1.00' }));
    const res = await b.request('POST', '/api/payments/orders/ORDER-R/capture');
    expect(res.status).toBe(200);
    expect(res.body.points).toBe(100);
    expect(await purchases(id)).toHaveLength(1);
  });

  it('a capture still in progress at PayPal (same request id) answers 409, nothing credited', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-IP').reply(200, order('ORDER-IP', id, 1));
    nock(PAYPAL)
      .post('/v2/checkout/orders/ORDER-IP/capture')
      .reply(422, { name: 'UNPROCESSABLE_ENTITY', message: 'x', debug_id: 'x', details: [{ issue: 'PREVIOUS_REQUEST_IN_PROGRESS' }] });
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-IP').reply(200, order('ORDER-IP', id, 1));
    const res = await b.request('POST', '/api/payments/orders/ORDER-IP/capture');
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('This payment is still being processed, please try again');
    expect(await purchases(id)).toEqual([]);
  });

  it('a capture that is not COMPLETED credits nothing', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-P').reply(200, order('ORDER-P', id, 10));
    nock(PAYPAL).post('/v2/checkout/orders/ORDER-P/capture').reply(201, order('ORDER-P', id, 10, { id: 'CAP-P', status: 'PENDING', value: '10.00' }));
    const res = await b.request('POST', '/api/payments/orders/ORDER-P/capture');
    expect(res.status).toBe(402);
    expect(res.body.error).toBe('This payment has not been completed');
    expect(await purchases(id)).toEqual([]);
  });

  it('an amount or currency other than the option the order was created for credits nothing', async () => {
    const { b, id } = await member();
    const cases = [
      { orderId: 'ORDER-AMT', capture: { id: 'CAP-AMT', status: 'COMPLETED', value: '1.00' } },
      { orderId: 'ORDER-CUR', capture: { id: 'CAP-CUR', status: 'COMPLETED', value: '10.00', currency: 'EUR' } },
    ];
    for (const { orderId, capture } of cases) {
      nock(PAYPAL).get(`/v2/checkout/orders/${orderId}`).reply(200, order(orderId, id, 10));
      nock(PAYPAL).post(`/v2/checkout/orders/${orderId}/capture`).reply(201, order(orderId, id, 10, capture));
      const res = await b.request('POST', `/api/payments/orders/${orderId}/capture`);
      expect(res.status).toBe(402);
      expect(res.body.error).toBe('This payment does not match any purchase option');
    }
    expect(await purchases(id)).toEqual([]);
  });

  it("only the member who created the order can capture it: PayPal's capture is never called for another", async () => {
    const { id } = await member();
    const thief = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-T').reply(200, order('ORDER-T', id, 10));
    const res = await thief.b.request('POST', '/api/payments/orders/ORDER-T/capture');
    expect(res.status).toBe(402);
    expect(res.body.error).toBe('This payment belongs to another member');
    expect((await h.browser().request('POST', '/api/payments/orders/ORDER-T/capture')).status).toBe(401);
  });

  it('an order the buyer has not approved yet is refused with a clear message', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-N').reply(200, { ...order('ORDER-N', id, 10), status: 'CREATED' });
    nock(PAYPAL)
      .post('/v2/checkout/orders/ORDER-N/capture')
      .reply(422, { name: 'UNPROCESSABLE_ENTITY', message: 'x', debug_id: 'x', details: [{ issue: 'ORDER_NOT_APPROVED' }] });
    const res = await b.request('POST', '/api/payments/orders/ORDER-N/capture');
    expect(res.status).toBe(402);
    expect(res.body.error).toBe('This payment has not been approved yet');
  });

  it('a network failure answers 502 with a clear error and credits nothing', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-X').reply(200, order('ORDER-X', id, 10));
    nock(PAYPAL).post('/v2/checkout/orders/ORDER-X/capture').replyWithError('socket hang up');
    const res = await b.request('POST', '/api/payments/orders/ORDER-X/capture');
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'The payment could not be verified, please try again' });
    expect(await purchases(id)).toEqual([]);
  });

  it('PayPal answering 5xx is a 502 too', async () => {
    const { b } = await member();
    nock(PAYPAL).post('/v2/checkout/orders').reply(503, { name: 'SERVICE_UNAVAILABLE', message: 'down', debug_id: 'x' });
    const res = await b.request('POST', '/api/payments/orders', { amountUsd: 1 });
    expect(res.status).toBe(502);
  });

  it('a timeout answers 504 with a clear error and credits nothing', async () => {
    const { b, id } = await member();
    nock(PAYPAL).get('/v2/checkout/orders/ORDER-S').reply(200, order('ORDER-S', id, 10));
    nock(PAYPAL)
      .post('/v2/checkout/orders/ORDER-S/capture')
      .delay(TIMEOUT_MS * 3)
      .reply(201, order('ORDER-S', id, 10, { id: 'CAP-S', status: 'COMPLETED', value: '10.00' }));
    const res = await b.request('POST', '/api/payments/orders/ORDER-S/capture');
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ error: 'The payment provider did not answer in time, please try again' });
    expect(await purchases(id)).toEqual([]);
  });
});

describe('refund and reversal webhook', () => {
  const signed = {
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1',
    'paypal-transmission-id': 'TX-1',
    'paypal-transmission-sig': 'c2lnbmF0dXJl',
    'paypal-transmission-time': '2026-11-21T09:00:00Z',
  };

  async function deliver(event: unknown, headers: Record<string, string> = signed) {
    const res = await fetch(`${h.url}/api/payments/webhooks/paypal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(event),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function bought(id: string, b: Browser, captureId: string) {
    nock(PAYPAL).get(`/v2/checkout/orders/O-${captureId}`).reply(200, order(`O-${captureId}`, id, 1));
    nock(PAYPAL).post(`/v2/checkout/orders/O-${captureId}/capture`).reply(201, order(`O-${captureId}`, id, 1, { id: captureId, status: 'COMPLETED', value: '1.00' }));
    expect((await b.request('POST', `/api/payments/orders/O-${captureId}/capture`)).status).toBe(200);
  }

  const refund = (captureId: string) => ({
    id: `WH-EVT-${captureId}`,
    event_type: 'PAYMENT.CAPTURE.REFUNDED',
    resource: {
      id: `REFUND-${captureId}`,
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '1.00' },
      links: [
        { rel: 'self', href: `${PAYPAL}/v2/payments/refunds/REFUND-${captureId}`, method: 'GET' },
        { rel: 'up', href: `${PAYPAL}/v2/payments/captures/${captureId}`, method: 'GET' },
      ],
    },
  });

  it('a verified refund takes the points back once (PurchaseReversed on the member stream), whatever the redeliveries', async () => {
    const { b, id } = await member();
    await bought(id, b, 'CAP-W1');
    const event = refund('CAP-W1');
    let verification: Record<string, unknown> | undefined;
    nock(PAYPAL)
      .post('/v1/notifications/verify-webhook-signature', (body: unknown) => {
        // nock may also ask the matcher before the body is read; keep the parsed one.
        if (body && typeof body === 'object') verification = body as Record<string, unknown>;
        return true;
      })
      .matchHeader('authorization', 'Bearer A21-token')
      .twice()
      .reply(200, { verification_status: 'SUCCESS' });
    nock(PAYPAL).get('/v2/payments/captures/CAP-W1').twice().reply(200, { id: 'CAP-W1', status: 'REFUNDED', custom_id: id });

    const res = await deliver(event);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, outcome: 'reversed', captureId: 'CAP-W1', userId: id, balance: 10 });
    expect(verification).toEqual({
      auth_algo: signed['paypal-auth-algo'],
      cert_url: signed['paypal-cert-url'],
      transmission_id: signed['paypal-transmission-id'],
      transmission_sig: signed['paypal-transmission-sig'],
      transmission_time: signed['paypal-transmission-time'],
      webhook_id: WEBHOOK_ID,
      webhook_event: event,
    });
    expect((await deliver(event)).status).toBe(200);
    const events = await purchases(id);
    expect(events.map((e) => e.type)).toEqual(['PointsPurchased', 'PurchaseReversed']);
    expect(events[1]!.data).toMatchObject({ captureId: 'CAP-W1', reason: 'refunded', amountUsd: 1, points: 100 });
  });

  it('asks PayPal to verify the body\'s bytes as received, not the JSON parsed and written again', async () => {
    const { b, id } = await member();
    await bought(id, b, 'CAP-W5');
    // Spacing, key order, a unicode escape and 1.0: JSON.stringify(JSON.parse(raw)) differs from raw.
    const raw =
      '{ "event_type" : "PAYMENT.CAPTURE.REFUNDED", "id":"WH-RAW",\n' +
      `  "resource":{"id":"REFUND-RAW","amount":{"value":"1.00","currency_code":"USD"},"note":"caf\\u00e9","fee":1.0,` +
      `"links":[{"rel":"up","href":"${PAYPAL}/v2/payments/captures/CAP-W5","method":"GET"}]} }`;
    expect(JSON.stringify(JSON.parse(raw))).not.toBe(raw);
    let sent = '';
    const verify = nock(PAYPAL).post('/v1/notifications/verify-webhook-signature').reply(200, { verification_status: 'SUCCESS' });
    // The request's body as it went out, as text.
    verify.on('request', (_req: unknown, _interceptor: unknown, body: string) => {
      sent = body;
    });
    nock(PAYPAL).get('/v2/payments/captures/CAP-W5').reply(200, { id: 'CAP-W5', status: 'REFUNDED', custom_id: id });
    const res = await fetch(`${h.url}/api/payments/webhooks/paypal`, { method: 'POST', headers: { 'content-type': 'application/json', ...signed }, body: raw });
    expect(res.status).toBe(200);
    expect(sent).toContain(`"webhook_event":${raw}}`);
    expect(JSON.parse(sent)).toMatchObject({ webhook_id: WEBHOOK_ID, transmission_id: 'TX-1', webhook_event: JSON.parse(raw) });
  });

  it('a partial refund takes back the points its dollars bought; the refund of the rest, the others', async () => {
    const { b, id } = await member();
    await bought(id, b, 'CAP-W6');
    const partRefund = (refundId: string, value: string) => ({
      id: `WH-${refundId}`,
      event_type: 'PAYMENT.CAPTURE.REFUNDED',
      resource: { id: refundId, status: 'COMPLETED', amount: { currency_code: 'USD', value }, links: [{ rel: 'up', href: `${PAYPAL}/v2/payments/captures/CAP-W6`, method: 'GET' }] },
    });
    nock(PAYPAL).post('/v1/notifications/verify-webhook-signature').times(3).reply(200, { verification_status: 'SUCCESS' });
    nock(PAYPAL).get('/v2/payments/captures/CAP-W6').twice().reply(200, { id: 'CAP-W6', status: 'PARTIALLY_REFUNDED', custom_id: id });
    nock(PAYPAL).get('/v2/payments/captures/CAP-W6').reply(200, { id: 'CAP-W6', status: 'REFUNDED', custom_id: id });

    // 10 points at joining + 100 bought for 1 USD; 0.25 USD refunded takes 25.
    const first = await deliver(partRefund('REFUND-P1', '0.25'));
    expect(first).toMatchObject({ status: 200, body: { outcome: 'partially_refunded', refundedUsd: 0.25, pointsTaken: 25, balance: 85 } });
    // PayPal delivers it again: nothing more.
    expect((await deliver(partRefund('REFUND-P1', '0.25'))).body).toMatchObject({ outcome: 'ignored' });
    const rest = await deliver(partRefund('REFUND-P2', '0.75'));
    expect(rest).toMatchObject({ status: 200, body: { outcome: 'reversed', balance: 10 } });
    const events = await purchases(id);
    expect(events.map((e) => e.data)).toMatchObject([
      { captureId: 'CAP-W6', amountUsd: 1, points: 100 },
      { captureId: 'CAP-W6', reason: 'refunded', amountUsd: 0.25, points: 25, partial: true, refundId: 'REFUND-P1', refundedUsd: 0.25 },
      { captureId: 'CAP-W6', reason: 'refunded', amountUsd: 0.75, points: 75, partial: false, refundId: 'REFUND-P2', refundedUsd: 1 },
    ]);
    expect((await b.request('GET', `/api/verify-access/${id}`)).body).toMatchObject({ chatCount: 10, buyed: 0 });
  });

  it('a reversal (chargeback) never takes the balance below zero', async () => {
    const { b, id } = await member();
    await bought(id, b, 'CAP-W2');
    nock(PAYPAL).post('/v1/notifications/verify-webhook-signature').reply(200, { verification_status: 'SUCCESS' });
    nock(PAYPAL).get('/v2/payments/captures/CAP-W2').reply(200, { id: 'CAP-W2', status: 'REVERSED', custom_id: id });
    const res = await deliver({ id: 'WH-EVT-R', event_type: 'PAYMENT.CAPTURE.REVERSED', resource: { id: 'CAP-W2', status: 'REVERSED', custom_id: id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'reversed', balance: 10 });
    expect((await purchases(id)).map((e) => e.type)).toEqual(['PointsPurchased', 'PurchaseReversed']);
  });

  it('an invalid signature is refused with 400 and nothing is appended', async () => {
    const { b, id } = await member();
    await bought(id, b, 'CAP-W3');
    nock(PAYPAL).post('/v1/notifications/verify-webhook-signature').reply(200, { verification_status: 'FAILURE' });
    const res = await deliver(refund('CAP-W3'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The webhook signature is not valid' });
    // Without the transmission headers PayPal is not even asked.
    expect((await deliver(refund('CAP-W3'), {})).status).toBe(400);
    expect((await purchases(id)).map((e) => e.type)).toEqual(['PointsPurchased']);
  });

  it('PayPal unreachable while verifying: 502, so PayPal redelivers later; nothing appended', async () => {
    const { b, id } = await member();
    await bought(id, b, 'CAP-W4');
    nock(PAYPAL).post('/v1/notifications/verify-webhook-signature').replyWithError('connect ECONNREFUSED');
    expect((await deliver(refund('CAP-W4'))).status).toBe(502);
    expect((await purchases(id)).map((e) => e.type)).toEqual(['PointsPurchased']);
  });
});
