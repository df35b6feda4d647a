import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import type { SimulatedPaymentProvider } from './payments/provider/simulated-provider';
import { DEFAULT_LOGIN_LIMITS } from './sessions/rate-limiter';
import type { Harness } from './test-support/harness';
import { smallPng } from './test-support/images';
import { startTwoInstances, type TwoInstances } from './test-support/two-instances';

const pgUp = await requireService('command-api distributed (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('command-api distributed (Redis)', testRedisUrl(), 6379);

/** Two command-api processes' worth of composition on one PostgreSQL store and one Redis. */
describe.skipIf(!pgUp || !redisUp)('distributed mode: two command-api instances', () => {
  let pair: TwoInstances;
  let a: Harness;
  let b: Harness;

  beforeAll(async () => {
    pair = await startTwoInstances({ loginLimits: { ...DEFAULT_LOGIN_LIMITS, failuresPerAccountAndIp: { max: 3, windowMs: 60_000 } } });
    ({ a, b } = pair);
  });
  afterAll(async () => {
    await pair?.close();
  });

  it('share sessions, logouts, login limits and the 30 s rule', async () => {
    const onA = a.browser();
    const { body: user } = await onA.request('POST', '/api/register-user', { email: 'dist@example.com', password: 'pass1' });
    const onB = b.browser();
    onB.cookies.set(USER_SESSION_COOKIE, onA.cookies.get(USER_SESSION_COOKIE)!);
    expect((await onB.request('GET', `/api/verify-access/${user.id}`)).status).toBe(200);

    // Each instance caches the member; the store's revision check keeps the rule across them.
    // B checks the ticket A's rule accepted (one session secret) and sees the point A recorded.
    const ticket = { ticket: a.adViewTicket(user.id) };
    expect((await onA.request('POST', '/api/free-point', ticket)).status).toBe(200);
    expect((await onB.request('POST', '/api/free-point', ticket)).status).toBe(409);
    expect((await onB.request('POST', '/api/free-point', { ticket: b.adViewTicket(user.id, 0) })).status).toBe(429);

    // Failed passwords count across instances (the harness's clients share one address).
    for (const h of [a, b, a]) expect((await h.browser().request('POST', '/api/register-user', { email: 'dist@example.com', password: 'bad1' })).status).toBe(401);
    expect((await b.browser().request('POST', '/api/register-user', { email: 'dist@example.com', password: 'pass1' })).status).toBe(429);

    expect((await onB.request('POST', '/api/logout')).status).toBe(204);
    expect((await onA.request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
  });

  it('processes uploads on the BullMQ workers into the shared uploads folder', async () => {
    const m = b.browser();
    const { body: user } = await m.request('POST', '/api/register-user', { email: 'dist-post@example.com', password: 'pass1' });
    const provider = b.api.payments as SimulatedPaymentProvider;
    const { orderId } = await provider.createOrder(user.id, 1);
    await provider.captureOrder(orderId);
    expect((await m.request('POST', '/api/buy-points', { orderId })).status).toBe(200);
    const admin = a.browser();
    await admin.request('POST', '/api/admin-login', { email: 'admin@example.com', password: 'admin-pass-123' });
    expect((await admin.request('PUT', '/api/main-data', { available: 10, cpm: 1, donations: 0, startDate: '' })).status).toBe(200);

    const form = new FormData();
    for (const [k, v] of Object.entries({ fullname: 'Dist', country: 'Peru', email: 'dist-post@example.com', link: 'https://dist.example.com', message: 'Over Redis', passes: '2' })) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'p.png');
    const res = await m.form('/api/register-special-user', form);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ passes: 2 });
    expect((await readFile(join(pair.uploadsDir, res.body.user.image.path))).length).toBeGreaterThan(0);
    expect((await fetch(a.url + res.body.user.image.url)).status).toBe(200);
  });
});
