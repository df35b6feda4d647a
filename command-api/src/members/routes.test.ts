import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { DEFAULT_LOGIN_LIMITS } from '../sessions/rate-limiter';
import { startHarness, type Harness } from '../test-support/harness';
import { joinedMember, nextMemberEmail } from '../test-support/members';

/** Wrong passwords per (account, client); the harness's clients all come from 127.0.0.1. At least the 20 registrations raced below. */
const LIMIT = 20;

let h: Harness;
let nowMs = Date.parse('2026-05-01T09:00:00.000Z');
const clock = () => new Date(nowMs);

beforeAll(async () => {
  h = await startHarness({ clock, config: { loginLimits: { ...DEFAULT_LOGIN_LIMITS, attemptsPerIp: { max: 1000, windowMs: 60_000 }, failuresPerAccountAndIp: { max: LIMIT, windowMs: 60_000 }, accountCeiling: { after: 1000, windowMs: 60_000, firstDelayMs: 60_000, maxDelayMs: 60_000 } } } });
});
afterAll(async () => {
  await h?.close();
});

const email = nextMemberEmail;
const joined = (address?: string, password?: string) => joinedMember(h, address, password);

describe('POST /api/register-user (the join form)', () => {
  it('registers an unknown email with 10 points and a 24 h httpOnly, SameSite=Lax session cookie', async () => {
    const b = h.browser();
    const res = await b.request('POST', '/api/register-user', { email: 'Ana@Example.com', password: 'abcd' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'ana@example.com', chatCount: 10, priority: '', passes: 0, registered: true });
    expect(res.body.id).toEqual(expect.any(String));
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${USER_SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=86400/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('sets a device cookie on sign-in: httpOnly, for /api only, 90 days, naming no account', async () => {
    const address = email();
    const res = await h.browser().request('POST', '/api/register-user', { email: address, password: 'abcd' });
    expect(res.status).toBe(201);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('pass_device='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/api(;|$)/);
    expect(cookie).toMatch(/Max-Age=7776000/);
    const value = decodeURIComponent(cookie.split(';')[0]!.slice('pass_device='.length));
    expect(value).toMatch(/^[\w-]{22}\.\d+\.[\w-]{43}$/);
    expect(value.toLowerCase()).not.toContain(address.split('@')[0]!.toLowerCase());
  });

  it('logs a known email in with the right password, and refuses a wrong one with one clear error', async () => {
    const { user, address } = await joined();
    const again = h.browser();
    const ok = await again.request('POST', '/api/register-user', { email: address.toUpperCase(), password: 'pass1' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: user.id, registered: false });
    expect(again.cookies.has(USER_SESSION_COOKIE)).toBe(true);

    const wrong = h.browser();
    const res = await wrong.request('POST', '/api/register-user', { email: address, password: 'nope' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'This email is already registered with a different password' });
    expect(wrong.cookies.size).toBe(0);
  });

  it.each([
    [{ email: '', password: 'abcd' }, 'email', 'Enter an email'],
    [{ email: 'a@b', password: 'abcd' }, 'email', 'Please enter a valid email'],
    [{ email: 'averyveryverylongaddress@example.com', password: 'abcd' }, 'email', 'Invalid Email'],
    [{ email: 'ana@example.xyz', password: 'abcd' }, 'email', 'Invalid Email'],
    [{ email: 'ana@example.com', password: '' }, 'password', 'Please enter your password'],
    [{ email: 'ana@example.com', password: 'abc' }, 'password', 'Enter a valid password'],
    [{ email: 'ana@example.com', password: 'abcdefghi' }, 'password', 'Please do not exceed 8 characters'],
  ])('refuses %j with the spec message', async (body, field, message) => {
    const res = await h.browser().request('POST', '/api/register-user', body);
    expect(res.status).toBe(400);
    expect(res.body.fields[field]).toBe(message);
    expect(res.body.error).toEqual(expect.any(String));
  });

  it('20 concurrent registrations of one email make one account', async () => {
    const address = email();
    const browsers = Array.from({ length: 20 }, () => h.browser());
    const results = await Promise.all(browsers.map((b) => b.request('POST', '/api/register-user', { email: address, password: 'same1' })));
    expect(results.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.body.registered)).toHaveLength(1);
    const streams = new Set((await h.store.readAll()).filter((e) => e.type === 'UserRegistered' && (e.data as { email: string }).email === address).map((e) => e.streamId));
    expect(streams.size).toBe(1);
  });

  it('rate-limits failed passwords per account and client with 429 and a clear message', async () => {
    const { address } = await joined();
    for (let i = 0; i < LIMIT; i++) expect((await h.browser().request('POST', '/api/register-user', { email: address, password: 'bad1' })).status).toBe(401);
    const res = await h.browser().request('POST', '/api/register-user', { email: address, password: 'pass1' });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(/^Too many login attempts\. Please try again in \d+ (seconds?|minutes?)\.$/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts guesses sent at once before checking them: over the limit they are refused untried', async () => {
    const { address } = await joined();
    const guesses = await Promise.all(Array.from({ length: LIMIT + 10 }, (_, i) => h.browser().request('POST', '/api/register-user', { email: address, password: `bad${i}` })));
    const statuses = guesses.map((r) => r.status).sort((a, b) => a - b);
    expect(statuses).toEqual([...Array(LIMIT).fill(401), ...Array(10).fill(429)]);
  });

  it('a right password clears the client’s failures on the account', async () => {
    const { address } = await joined();
    for (let i = 0; i < LIMIT - 1; i++) expect((await h.browser().request('POST', '/api/register-user', { email: address, password: 'bad1' })).status).toBe(401);
    expect((await h.browser().request('POST', '/api/register-user', { email: address, password: 'pass1' })).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await h.browser().request('POST', '/api/register-user', { email: address, password: 'bad1' })).status).toBe(401);
  });
});

describe('sessions', () => {
  it('logout revokes the session: the same cookie replayed afterwards is refused', async () => {
    const { b, user } = await joined();
    const stolen = b.cookies.get(USER_SESSION_COOKIE)!;
    expect((await b.request('GET', `/api/verify-access/${user.id}`)).status).toBe(200);
    expect((await b.request('POST', '/api/logout')).status).toBe(204);
    expect(b.cookies.has(USER_SESSION_COOKIE)).toBe(false);
    const replay = h.browser();
    replay.cookies.set(USER_SESSION_COOKIE, stolen);
    expect((await replay.request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
  });

  it('a forged cookie is refused', async () => {
    const { user } = await joined();
    const forger = h.browser();
    forger.cookies.set(USER_SESSION_COOKIE, 'made-up-id.signature');
    expect((await forger.request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
  });

  it('expires after 24 hours', async () => {
    const { b, user } = await joined();
    nowMs += 24 * 3600_000 + 1000;
    expect((await b.request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
  });

  it('the SessionVerifier port resolves the cookie to its member', async () => {
    const { b, user } = await joined();
    const header = `${USER_SESSION_COOKIE}=${b.cookies.get(USER_SESSION_COOKIE)}`;
    const auth = await h.api.sessions.verify(header);
    expect(auth.user).toMatchObject({ kind: 'user', id: user.id });
    expect(auth.admin).toBeNull();
    expect(await h.api.sessions.verify(undefined)).toEqual({ user: null, admin: null });
  });
});

describe('GET /api/verify-access/:userId', () => {
  it('answers the own user model; 401 for a guest; 403 for another member', async () => {
    const { b, user } = await joined();
    const own = await b.request('GET', `/api/verify-access/${user.id}`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: user.id, chatCount: 10, passes: 0, buyed: 0, image: null, fullname: '' });
    expect((await h.browser().request('GET', `/api/verify-access/${user.id}`)).status).toBe(401);
    const other = await joined();
    const res = await other.b.request('GET', `/api/verify-access/${user.id}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual(expect.any(String));
  });
});
