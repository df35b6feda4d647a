import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_SESSION_COOKIE } from '@pass/events';
import { SimulatedPaymentProvider } from '../payments/simulated-provider';
import { startHarness, type Browser, type Harness } from '../testing/harness';

let h: Harness;
let nowMs = Date.parse('2026-05-01T09:00:00.000Z');
const clock = () => new Date(nowMs);

beforeAll(async () => {
  h = await startHarness({ clock, config: { loginLimits: { perEmail: { max: 3, windowMs: 60_000 }, perIp: { max: 1000, windowMs: 60_000 } } } });
});
afterAll(async () => {
  await h?.close();
});

let n = 0;
const email = () => `member${++n}@example.com`;

async function joined(address = email(), password = 'pass1') {
  const b = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: address, password });
  expect(res.status).toBe(201);
  return { b, user: res.body as { id: string; email: string }, address };
}

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

  it('rate-limits failed passwords per email with 429 and a clear message', async () => {
    const { address } = await joined();
    for (let i = 0; i < 3; i++) expect((await h.browser().request('POST', '/api/register-user', { email: address, password: 'bad1' })).status).toBe(401);
    const res = await h.browser().request('POST', '/api/register-user', { email: address, password: 'pass1' });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(/^Too many login attempts\. Please try again in \d+ minutes?\.$/);
    expect(res.headers.get('retry-after')).toEqual(expect.any(String));
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

describe('POST /api/free-point (the /content/check countdown)', () => {
  const ticketOf = async (b: Browser) => {
    const res = await b.request('POST', '/api/free-point/ticket');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return res.body as { ticket: string; issuedAt: string; readyAt: string; expiresAt: string };
  };

  it('awards the point once the countdown has run (29 s after its ticket), then refuses the same ticket', async () => {
    const { b } = await joined();
    const t = await ticketOf(b);
    expect(t.issuedAt).toBe(new Date(nowMs).toISOString());
    expect(Date.parse(t.readyAt) - nowMs).toBe(28_000);
    nowMs += 29_000;
    const first = await b.request('POST', '/api/free-point', { ticket: t.ticket });
    expect(first.status).toBe(200);
    expect(first.body.user.chatCount).toBe(11);
    // A lost answer retried, or a replay later: the ticket has earned its point.
    nowMs += 31_000;
    const again = await b.request('POST', '/api/free-point', { ticket: t.ticket });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('This countdown already earned its point: open the free points page again');
    // A new countdown earns the next one.
    const next = await ticketOf(b);
    nowMs += 29_000;
    expect((await b.request('POST', '/api/free-point', { ticket: next.ticket })).body.user.chatCount).toBe(12);
  });

  it('refuses a member who just joined and asks at once (429 with the time left), recording nothing', async () => {
    const { b } = await joined();
    const t = await ticketOf(b);
    const before = (await h.store.readAll()).length;
    nowMs += 2_000;
    const res = await b.request('POST', '/api/free-point', { ticket: t.ticket });
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('Watch the countdown to the end: your point is ready in 26 seconds');
    expect(res.headers.get('retry-after')).toBe('26');
    expect((await h.store.readAll()).length).toBe(before);
    // The same ticket is good once the countdown has run.
    nowMs += 26_000;
    expect((await b.request('POST', '/api/free-point', { ticket: t.ticket })).status).toBe(200);
  });

  it('refuses no ticket, a forged one and another member\'s (400, the message the page shows)', async () => {
    const { b, user } = await joined();
    const other = await joined();
    const theirs = await ticketOf(other.b);
    const [, ms] = theirs.ticket.split('.');
    nowMs += 29_000;
    for (const body of [undefined, {}, { ticket: 42 }, { ticket: `v1.${ms}.${'A'.repeat(43)}` }, { ticket: theirs.ticket }]) {
      const res = await b.request('POST', '/api/free-point', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Watch the free-point countdown on the free points page to earn a point');
    }
    // A ticket for this member signed with another secret (another installation) is forged too.
    const elsewhere = await startHarness({ config: { sessionSecret: 'y'.repeat(40) } });
    try {
      expect((await b.request('POST', '/api/free-point', { ticket: elsewhere.adViewTicket(user.id) })).status).toBe(400);
    } finally {
      await elsewhere.close();
    }
    expect((await other.b.request('POST', '/api/free-point', { ticket: theirs.ticket })).status).toBe(200);
  });

  it('refuses a countdown started more than 5 minutes ago', async () => {
    const { b } = await joined();
    const t = await ticketOf(b);
    nowMs += 5 * 60_000 + 1_000;
    const res = await b.request('POST', '/api/free-point', { ticket: t.ticket });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('This free-point countdown has expired: open the free points page again');
  });

  it('needs a member session, for the ticket too', async () => {
    expect((await h.browser().request('POST', '/api/free-point/ticket')).status).toBe(401);
    expect((await h.browser().request('POST', '/api/free-point', { ticket: 'v1.1.x' })).status).toBe(401);
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

describe('store down', () => {
  it('answers 503 and appends nothing', async () => {
    const own = await startHarness();
    try {
      const b = own.browser();
      const joinedDown = await b.request('POST', '/api/register-user', { email: 'down@example.com', password: 'pass1' });
      await own.store.close();
      const res = await b.request('POST', '/api/free-point', { ticket: own.adViewTicket(joinedDown.body.id) });
      expect(res.status).toBe(503);
      expect(res.body.error).toMatch(/temporarily unavailable/);
    } finally {
      await own.close().catch(() => undefined);
    }
  });
});

export type { Browser };
