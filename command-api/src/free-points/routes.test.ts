import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Browser, type Harness } from '../test-support/harness';
import { joinedMember } from '../test-support/members';

let h: Harness;
let nowMs = Date.parse('2026-05-01T09:00:00.000Z');
const clock = () => new Date(nowMs);

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(async () => {
  await h?.close();
});

const joined = () => joinedMember(h);

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

