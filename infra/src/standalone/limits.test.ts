import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendChatMessageResponse } from '@pass/events';
import { dropRedisPrefix, requireService, testRedisUrl } from '@pass/events/test-support';
import { Browser, type LiveClient } from '../test-support/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

const redisUp = await requireService('infra: limits on Redis (standalone with REDIS_URL)', testRedisUrl(), 6379);

type ChatAnswer = { ok: true; data: SendChatMessageResponse } | { ok: false; status: number; error: string; retryAfterSeconds?: number };

/** A login attempt from `address` (the server trusts X-Forwarded-For from loopback, as behind its proxy). */
async function login(origin: string, address: string, email: string, password: string) {
  const res = await fetch(`${origin}/api/register-user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, retryAfter: Number(res.headers.get('retry-after')), body: (await res.json()) as { error?: string; retryAfterSeconds?: number } };
}

const emit = (socket: LiveClient, message: string) =>
  new Promise<ChatAnswer>((done) => socket.emit('sendChatMessage', { message }, (answer) => done(answer as ChatAnswer)));

/** The limits of the real server, in each store the layouts use: this process's memory, and Redis. */
const layouts = [
  { name: 'standalone (limits in memory)', env: {} as Record<string, string>, skip: false },
  { name: 'limits in Redis (REDIS_URL)', env: { REDIS_URL: testRedisUrl(), REDIS_PREFIX: `test:limits:${randomUUID().slice(0, 8)}:` }, skip: !redisUp },
];

describe.each(layouts)('throttles of the real server: $name', ({ env, skip }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-limits-'));
  let app: SpawnedService;
  const browsers: Browser[] = [];

  beforeAll(async () => {
    if (skip) return;
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory', ...env });
  }, 60_000);
  afterAll(async () => {
    for (const b of browsers) b.close();
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    if (env.REDIS_PREFIX && !skip) await dropRedisPrefix(testRedisUrl(), env.REDIS_PREFIX);
  });

  it.skipIf(skip)('20 chat messages emitted at once over the socket: 5 posted, 15 refused with the wait; HTTP shares the count and says the wait too', async () => {
    const member = new Browser(app.url);
    browsers.push(member);
    expect((await member.request('POST', '/api/register-user', { email: `chat-${randomUUID().slice(0, 8)}@example.com`, password: 'pass1' })).status).toBe(201);
    const socket = await member.socket();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => emit(socket, `burst ${i}`)));
    expect(answers.filter((a) => a.ok)).toHaveLength(5);
    const refused = answers.filter((a) => !a.ok);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r).toMatchObject({ status: 429, error: expect.stringMatching(/^You are sending messages too fast\. Please wait \d+ seconds? and try again\.$/) });
      expect(r.retryAfterSeconds).toBeGreaterThan(0);
      expect(r.retryAfterSeconds).toBeLessThanOrEqual(10);
    }
    const overHttp = await member.request('POST', '/api/chat-messages', { message: 'one more' });
    expect(overHttp.status).toBe(429);
    expect(overHttp.body).toEqual({ error: expect.stringMatching(/too fast/), retryAfterSeconds: expect.any(Number) });
  });

  it.skipIf(skip)('30 wrong passwords sent at once for one account from one client: 10 are tried, the rest refused untried', async () => {
    const email = `guess-${randomUUID().slice(0, 8)}@example.com`;
    expect((await login(app.url, '198.51.100.1', email, 'right1')).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => login(app.url, '198.51.100.2', email, `wrong${i}`)));
    const statuses = answers.map((a) => a.status).sort((a, b) => a - b);
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(20).fill(429)]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error).toMatch(/^Too many login attempts\. Please try again in \d+ (seconds?|minutes?)\.$/);
    expect(refused.retryAfter).toBeGreaterThan(0);
    // The right password from that client is refused too: it has used its guesses on this account.
    expect((await login(app.url, '198.51.100.2', email, 'right1')).status).toBe(429);
  });

  it.skipIf(skip)('below the account’s ceiling, the member gets in from a clean client with the right password while attackers fail on the account elsewhere', async () => {
    const email = `target-${randomUUID().slice(0, 8)}@example.com`;
    expect((await login(app.url, '198.51.100.3', email, 'right1')).status).toBe(201);
    // 18 failures from two clients; past 20 the account's ceiling applies (login-ceiling.test.ts).
    for (const attacker of ['198.51.100.4', '198.51.100.5']) {
      const answers = await Promise.all(Array.from({ length: 9 }, () => login(app.url, attacker, email, 'wrong1')));
      expect(answers.map((a) => a.status)).toEqual(Array(9).fill(401));
    }
    expect((await login(app.url, '198.51.100.6', email, 'right1')).status).toBe(200);
    expect((await login(app.url, '198.51.100.3', email, 'right1')).status).toBe(200);
  });
});
