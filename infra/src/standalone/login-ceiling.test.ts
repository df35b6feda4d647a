import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRedisPrefix, eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { readMail } from '../mail/outbox';
import { Actor, type Answer } from '../test-support/hostile/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * The per-account ceiling on wrong passwords, against the real server: guesses on one account
 * from many client addresses (X-Forwarded-For from loopback is believed, as behind the proxy)
 * are refused past it, while the owner still gets in from a device that signed in before, or by
 * the reset mail.
 */

const redisUp = await requireService('infra: login ceiling on Redis (standalone with REDIS_URL)', testRedisUrl(), 6379);
const ADMIN = { email: 'ceiling-admin@example.com', password: 'admin-pass-123' };
const MEMBER_CEILING = /^Too many failed sign-ins on this account\. Please try again in \d+ (seconds?|minutes?), or reset your password with "Forgot your password\?"\.$/;
const ADMIN_CEILING = /^Demasiados intentos fallidos en esta cuenta\. Intente de nuevo en \d+ (segundos?|minutos?)\.$/;

let block = 0;
/** `count` attackers, each on an address of its own (a block of addresses per call). */
const attackers = (origin: string, count: number) => {
  block++;
  return Array.from({ length: count }, (_, i) => new Actor(origin, `172.16.${block}.${i + 1}`));
};

/** Every attacker sends one wrong password at once; the answers, sorted by status. */
async function guessAtOnce(actors: Actor[], path: string, email: string): Promise<Answer[]> {
  const answers = await Promise.all(actors.map((actor, i) => actor.send('POST', path, { json: { email, password: path === '/api/admin-login' ? `wrong-pass-${i}` : `bad${i}` } })));
  return answers.sort((a, b) => a.status - b.status);
}

const statuses = (answers: Answer[]) => answers.map((a) => a.status);
const checked = (answers: Answer[]) => answers.filter((a) => a.status === 401).length;

/** The reset link's token in the newest mail of the outbox addressed to `to`. */
function resetTokenFor(dataDir: string, to: string): string | undefined {
  const outbox = join(dataDir, 'outbox');
  if (!existsSync(outbox)) return undefined;
  for (const file of readdirSync(outbox).sort().reverse()) {
    const mail = readMail(file, readFileSync(join(outbox, file), 'latin1'));
    if (mail.to !== to) continue;
    const token = mail.links.map((link) => /[?#&]token=([^&\s]+)/.exec(link)?.[1]).find(Boolean);
    if (token) return decodeURIComponent(token);
  }
  return undefined;
}

const layouts = [
  { name: 'standalone (limits in memory)', env: {} as Record<string, string>, skip: false },
  { name: 'limits in Redis (REDIS_URL)', env: { REDIS_URL: testRedisUrl(), REDIS_PREFIX: `test:ceiling:${randomUUID().slice(0, 8)}:` }, skip: !redisUp },
];

describe.each(layouts)('per-account ceiling on password guesses, real server: $name', ({ env, skip }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-ceiling-'));
  let app: SpawnedService;

  beforeAll(async () => {
    if (skip) return;
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...env });
  }, 60_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    if (env.REDIS_PREFIX && !skip) await dropRedisPrefix(testRedisUrl(), env.REDIS_PREFIX);
  });

  it.skipIf(skip)('30 wrong passwords from 30 addresses on one member: at most 20 checked; the owner’s device still signs in, a clean client does not', { timeout: 90_000 }, async () => {
    const email = `ceiling-${randomUUID().slice(0, 8)}@example.com`;
    const owner = new Actor(app.url);
    expect((await owner.send('POST', '/api/register-user', { json: { email, password: 'right1' } })).status).toBe(201);

    const answers = await guessAtOnce(attackers(app.url, 30), '/api/register-user', email);
    expect(checked(answers)).toBeLessThanOrEqual(20);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(refused.length + checked(answers)).toBe(30);
    for (const r of refused) {
      expect(r.body).toEqual({ error: expect.stringMatching(MEMBER_CEILING), retryAfterSeconds: expect.any(Number) });
      expect(r.body.retryAfterSeconds).toBeGreaterThan(0);
    }

    // The right password from a client that never signed in to the account: refused untried.
    const stranger = await new Actor(app.url).send('POST', '/api/register-user', { json: { email, password: 'right1' } });
    expect(stranger.status).toBe(429);
    expect(stranger.body.error).toMatch(MEMBER_CEILING);
    // The owner's browser, even on another network, signs in: its device cookie vouches for it.
    owner.address = '192.0.2.77';
    const signedIn = await owner.send('POST', '/api/register-user', { json: { email, password: 'right1' } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.registered).toBe(false);
    // A device cookie is bound to its account: on another member's account it vouches for nothing.
    const other = `other-${randomUUID().slice(0, 8)}@example.com`;
    expect((await new Actor(app.url).send('POST', '/api/register-user', { json: { email: other, password: 'right2' } })).status).toBe(201);
    await guessAtOnce(attackers(app.url, 25), '/api/register-user', other);
    expect((await owner.send('POST', '/api/register-user', { json: { email: other, password: 'right2' } })).status).toBe(429);
  });

  it.skipIf(skip)('the owner without a device cookie gets in after a password reset, which clears the ceiling', { timeout: 90_000 }, async () => {
    const email = `reset-${randomUUID().slice(0, 8)}@example.com`;
    expect((await new Actor(app.url).send('POST', '/api/register-user', { json: { email, password: 'right1' } })).status).toBe(201);
    const answers = await guessAtOnce(attackers(app.url, 30), '/api/register-user', email);
    expect(checked(answers)).toBeLessThanOrEqual(20);

    // The owner on a new phone: no device cookie, so the ceiling applies to them too.
    const phone = new Actor(app.url);
    expect((await phone.send('POST', '/api/register-user', { json: { email, password: 'right1' } })).status).toBe(429);
    expect((await phone.send('POST', '/api/password-reset', { json: { email } })).status).toBe(202);
    let token: string | undefined;
    await eventually(() => {
      token = resetTokenFor(dataDir, email);
      expect(token).toBeDefined();
    }, 15_000);
    expect((await phone.send('POST', '/api/password-reset/confirm', { json: { token, password: 'new1' } })).status).toBe(204);

    // The reset cleared the account's count: any client with the new password gets in.
    const fresh = await new Actor(app.url).send('POST', '/api/register-user', { json: { email, password: 'new1' } });
    expect(fresh.body).toMatchObject({ registered: false });
    expect(fresh.status).toBe(200);
    expect((await phone.send('POST', '/api/register-user', { json: { email, password: 'new1' } })).status).toBe(200);
  });

  it.skipIf(skip)('40 concurrent admin guesses from 40 addresses: at most 20 checked; an unknown admin e-mail gets the same answers; the admin’s device still signs in', { timeout: 90_000 }, async () => {
    const admin = new Actor(app.url);
    expect((await admin.send('POST', '/api/admin-login', { json: ADMIN })).status).toBe(200);

    const [known, unknown] = await Promise.all([
      guessAtOnce(attackers(app.url, 40), '/api/admin-login', ADMIN.email),
      guessAtOnce(attackers(app.url, 40), '/api/admin-login', `nobody-${randomUUID().slice(0, 8)}@example.com`),
    ]);
    for (const answers of [known, unknown]) {
      expect(checked(answers)).toBeLessThanOrEqual(20);
      expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(20);
      expect(new Set(statuses(answers))).toEqual(new Set([401, 429]));
      for (const a of answers) {
        if (a.status === 401) expect(a.body).toEqual({ error: 'Email o contraseña incorrectos' });
        else expect(a.body).toEqual({ error: expect.stringMatching(ADMIN_CEILING), retryAfterSeconds: expect.any(Number) });
      }
    }
    expect(statuses(unknown)).toEqual(statuses(known));

    expect((await new Actor(app.url).send('POST', '/api/admin-login', { json: ADMIN })).status).toBe(429);
    admin.address = '192.0.2.78';
    expect((await admin.send('POST', '/api/admin-login', { json: ADMIN })).status).toBe(200);
  });
});
