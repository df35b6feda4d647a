import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { streams } from '@pass/events';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { ActionThrottle, DEFAULT_ACTION_LIMITS } from '../sessions/rate-limiter';
import { startHarness, type Harness } from '../test-support/harness';

/** Small limits so the test reaches them quickly; the defaults are checked for sanity below. */
const LIMITS = {
  chatPerUser: { max: 2, windowMs: 60_000 },
  chatPerIp: { max: 3, windowMs: 60_000 },
  freePointPerUser: { max: 2, windowMs: 60_000 },
  freePointPerIp: { max: 100, windowMs: 60_000 },
  ordersPerUser: { max: 100, windowMs: 60_000 },
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { actionLimits: LIMITS } });
});
afterAll(async () => {
  await h?.close();
});

async function member() {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: `lim${Math.random().toString(36).slice(2, 8)}@example.com`, password: 'pass1' });
  return { b, id: res.body.id as string };
}

const chatEvents = async (id: string) => (await h.store.readStream(streams.user(id))).filter((e) => e.type === 'ChatMessageSent').length;

describe('chat and free-point burst limits', () => {
  it('refuses a member’s messages over the burst with 429, a message to show and Retry-After, recording nothing', async () => {
    const { b, id } = await member();
    expect((await b.request('POST', '/api/chat-messages', { message: 'one' })).status).toBe(201);
    expect((await b.request('POST', '/api/chat-messages', { message: 'two' })).status).toBe(201);
    const refused = await b.request('POST', '/api/chat-messages', { message: 'three' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/^You are sending messages too fast\. Please wait \d+ seconds? and try again\.$/), retryAfterSeconds: Number(refused.headers.get('retry-after')) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The socket path (the gateway) shares the member's count.
    const user = (await h.api.sessions.verify(`pass_session=${b.cookies.get('pass_session')}`)).user!;
    expect(await h.api.gateway.sendChatMessage(user, { message: 'four' }, { correlationId: 'c1', clientAddress: '203.0.113.9' })).toMatchObject({ ok: false, status: 429, retryAfterSeconds: expect.any(Number) });
    expect(await chatEvents(id)).toBe(2);
  });

  it('counts every member behind one address together', async () => {
    // The first test spent 2 of this address's 3 (the harness has no proxy: every request is 127.0.0.1).
    const { b, id } = await member();
    expect((await b.request('POST', '/api/chat-messages', { message: 'hello' })).status).toBe(201);
    const refused = await b.request('POST', '/api/chat-messages', { message: 'again' });
    expect(refused.status).toBe(429);
    expect(await chatEvents(id)).toBe(1);
  });

  it('lets invalid drafts be answered 400 without spending the allowance', async () => {
    const { b } = await member();
    for (let i = 0; i < 5; i++) expect((await b.request('POST', '/api/chat-messages', { message: '' })).status).toBe(400);
  });

  it('limits asking for the free point, beyond its one-point-per-countdown rule', async () => {
    const { b, id } = await member();
    const ticket = { ticket: h.adViewTicket(id) };
    expect((await b.request('POST', '/api/free-point', ticket)).status).toBe(200);
    const again = await b.request('POST', '/api/free-point', ticket);
    expect(again.status).toBe(409);
    const limited = await b.request('POST', '/api/free-point', ticket);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/^Too many requests for free points\. Please wait \d+ seconds? and try again\.$/);
  });

  it('has defaults a human never reaches', () => {
    expect(DEFAULT_ACTION_LIMITS.chatPerUser.max / (DEFAULT_ACTION_LIMITS.chatPerUser.windowMs / 1000)).toBeGreaterThanOrEqual(0.5);
    // The free point comes once per 30 s by rule: a human clicking asks far less than the limit.
    expect(DEFAULT_ACTION_LIMITS.freePointPerUser.max).toBeGreaterThan(DEFAULT_ACTION_LIMITS.freePointPerUser.windowMs / 30_000);
  });
});

const redisReachable = await requireService('command-api: action limits in Redis', testRedisUrl(), 6379);

describe.skipIf(!redisReachable)('action limits in Redis (shared by every command-api process)', () => {
  it('counts across throttles on one prefix and refuses over the limit', async () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    const prefix = `test:limits:${randomUUID()}:`;
    try {
      const limits = { ...LIMITS, chatPerUser: { max: 2, windowMs: 5_000 } };
      const one = ActionThrottle.onRedis(redis, prefix, limits);
      const two = ActionThrottle.onRedis(redis, prefix, limits);
      expect(await one.attempt('chat', 'u1', '198.51.100.1')).toBe(0);
      expect(await two.attempt('chat', 'u1', '198.51.100.2')).toBe(0);
      const wait = await one.attempt('chat', 'u1', '198.51.100.3');
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(5);
      expect(await two.attempt('chat', 'u2', '198.51.100.3')).toBe(0);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
