import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_ACTION_LIMITS, tooManyActionsMessage } from '../sessions/rate-limiter';
import { RELAXED_ACTION_LIMITS, startHarness, type Harness } from '../test-support/harness';

/** Payment order creation is limited per member (ActionThrottle 'orders'), over real HTTP. */
const MAX = 3;
let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await startHarness({ config: { actionLimits: { ...RELAXED_ACTION_LIMITS, ordersPerUser: { max: MAX, windowMs: 10 * 60_000 } } } });
});
afterAll(() => h.close());

async function member() {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: `limited${++n}@example.com`, password: 'pass1' });
  expect(res.status).toBe(201);
  return b;
}

describe('POST /api/payments/orders per member', () => {
  it('the creation past the limit in the window is a 429 with Retry-After and creates no order', async () => {
    const b = await member();
    const create = vi.spyOn(h.api.payments, 'createOrder');
    try {
      for (let i = 0; i < MAX; i++) expect((await b.request('POST', '/api/payments/orders', { amountUsd: 5 })).status).toBe(201);
      expect(create).toHaveBeenCalledTimes(MAX);
      const refused = await b.request('POST', '/api/payments/orders', { amountUsd: 5 });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: expect.stringMatching(/^Too many payment orders started\. Please wait \d+ minutes? and try again\.$/), retryAfterSeconds: expect.any(Number) });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(create).toHaveBeenCalledTimes(MAX);
      // Another member is not affected.
      const other = await member();
      expect((await other.request('POST', '/api/payments/orders', { amountUsd: 5 })).status).toBe(201);
    } finally {
      create.mockRestore();
    }
  });

  it('an invalid option does not use up the allowance', async () => {
    const b = await member();
    for (let i = 0; i < MAX + 2; i++) expect((await b.request('POST', '/api/payments/orders', { amountUsd: 7 })).status).toBe(400);
    expect((await b.request('POST', '/api/payments/orders', { amountUsd: 5 })).status).toBe(201);
  });

  it('the default is ten orders in ten minutes, with a message in minutes', () => {
    expect(DEFAULT_ACTION_LIMITS.ordersPerUser).toEqual({ max: 10, windowMs: 10 * 60_000 });
    expect(tooManyActionsMessage('orders', 61)).toBe('Too many payment orders started. Please wait 2 minutes and try again.');
    expect(tooManyActionsMessage('orders', 30)).toBe('Too many payment orders started. Please wait 30 seconds and try again.');
  });
});
