import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemberStoryEntry } from '@pass/events';
import { ANA, BOB, CY } from '@pass/projector/test-support';
import { ADMIN, startRecordedReadSide, type ReadSide } from './test-support/read-side';

describe('query-api REST reads over HTTP', () => {
  let side: ReadSide;

  beforeAll(async () => {
    side = await startRecordedReadSide();
  });
  afterAll(async () => {
    await side.close();
  });

  it('GET /api/main-data gives the figures with funds raised = views × cpm + purchases + donations', async () => {
    const { status, body } = await side.client().request('GET', '/api/main-data');
    expect(status).toBe(200);
    expect(body).toEqual({
      available: 973,
      sold: 27,
      views: 4,
      cpm: 2.5,
      donations: 10.1,
      startDate: '01/11/2026',
      purchasesUsd: 5,
      fundsRaised: 25.1,
      members: 3,
      globalMessages: 1,
    });
  });

  it('GET /api/countries gives distinct countries and the top 5', async () => {
    const { body } = await side.client().request('GET', '/api/countries');
    expect(body).toEqual({ distinct: 2, top: [{ country: 'Chile', users: 1 }, { country: 'Peru', users: 1 }] });
  });

  it('GET /api/ranking pages members by passes and searches name, country and date', async () => {
    const c = side.client();
    const first = await c.request('GET', '/api/ranking?page=1&pageSize=2');
    expect(first.body).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(first.body.items.map((e: { rank: number; userId: string }) => [e.rank, e.userId])).toEqual([
      [1, BOB],
      [2, ANA],
    ]);
    expect(first.body.items[0]).toEqual({
      rank: 1,
      userId: BOB,
      fullname: 'Bob Stone',
      country: 'Chile',
      passes: 25,
      link: `https://example.com/${BOB}`,
      imageUrl: `/uploads/${BOB}.webp`,
      message: 'Hello',
      priority: 'specialUser',
      createdAt: '2026-11-03T09:03:00.000Z',
    });
    const second = await c.request('GET', '/api/ranking?page=2&pageSize=2');
    expect(second.body.items.map((e: { userId: string }) => e.userId)).toEqual([CY]);
    const maria = await c.request('GET', '/api/ranking?q=MARIA');
    expect(maria.body.items.map((e: { rank: number; userId: string }) => [e.rank, e.userId])).toEqual([[2, ANA]]);
    // Word prefixes: "mar" finds María.
    const mar = await c.request('GET', '/api/ranking?q=mar');
    expect(mar.body.items.map((e: { userId: string }) => e.userId)).toEqual([ANA]);
    const byDate = await c.request('GET', `/api/ranking?q=${encodeURIComponent('03/11/2026')}`);
    expect(byDate.body.total).toBe(3);
    const byEmail = await c.request('GET', `/api/ranking?q=${encodeURIComponent('bob@mail.org')}`);
    expect(byEmail.body.total).toBe(0); // the public ranking never matches e-mails
    expect((await c.request('GET', '/api/ranking?q=%21%21%21')).body).toEqual({ total: 0, page: 1, pageSize: 50, items: [] });
  });

  it('answers 400 { error } for bad paging or search input', async () => {
    const c = side.client();
    for (const query of ['page=0', 'pageSize=101', 'page=abc', `q=${'x'.repeat(101)}`, 'page=1&page=2']) {
      const res = await c.request('GET', `/api/ranking?${query}`);
      expect(res.status, query).toBe(400);
      expect(typeof res.body.error, query).toBe('string');
    }
    expect((await c.request('GET', '/api/chat-messages?limit=0')).status).toBe(400);
  });

  it('GET /api/registry masks e-mails of members without a name, except to their owner and admins', async () => {
    const guest = await side.client().request('GET', '/api/registry?pageSize=10');
    expect(guest.body.total).toBe(3); // every registered user, members or not (admins are not users)
    const members = guest.body.items.map((r: { member: string }) => r.member);
    expect(members).toContain('cyr***@site.io');
    // What the mask shows finds the row in the registry, never what it hides, never in the ranking.
    const ids = async (path: string) => (await side.client().request('GET', path)).body.items.map((r: { userId: string }) => r.userId);
    expect(await ids('/api/registry?q=cyr')).toEqual([CY]);
    expect(await ids(`/api/registry?q=${encodeURIComponent('cyr***@site.io')}`)).toEqual([CY]);
    expect(await ids('/api/registry?q=site')).toEqual([CY]);
    expect(await ids('/api/registry?q=cyrus')).toEqual([]);
    expect(await ids('/api/ranking?q=cyr')).toEqual([]);

    const dan = side.client();
    const joined = await dan.request('POST', '/api/register-user', { email: 'daniel@home.net', password: 'pass1' });
    expect(joined.status).toBe(201);
    await side.projector.settled();
    const own = await dan.request('GET', `/api/registry?q=${encodeURIComponent('daniel@home.net')}`);
    expect(own.body.items).toEqual([
      { userId: joined.body.id, createdAt: expect.any(String), member: 'daniel@home.net', passes: 0, points: 10, priority: '' },
    ]);
    // Others cannot use the e-mail search to learn whether an address is registered…
    const probe = await side.client().request('GET', `/api/registry?q=${encodeURIComponent('daniel@home.net')}`);
    expect(probe.body).toMatchObject({ total: 0, items: [] });
    // …and see the row masked in the list.
    const list = await side.client().request('GET', '/api/registry?pageSize=100');
    expect(list.body.items.find((r: { userId: string }) => r.userId === joined.body.id)?.member).toBe('dan***@home.net');
  });

  it('GET /api/chat-messages and /api/global-post give the chat since the clear and the newest post', async () => {
    const c = side.client();
    const chat = await c.request('GET', '/api/chat-messages?limit=10');
    expect(chat.body).toEqual({
      total: 1,
      messages: [{ id: 'm3', userId: BOB, nickname: 'Bob Stone', message: 'anyone?', priority: '', sentAt: '2026-11-03T09:29:00.000Z' }],
    });
    const post = await c.request('GET', '/api/global-post');
    expect(post.body).toMatchObject({ user: { id: ANA, fullname: 'Ana María' }, message: 'Updated greeting' });
  });

  it('GET /api/me answers 401 to guests and the session user to members', async () => {
    expect((await side.client().request('GET', '/api/me')).status).toBe(401);
    const eve = side.client();
    await eve.request('POST', '/api/register-user', { email: 'eve@web.org', password: 'pass1' });
    const me = await eve.request('GET', '/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'eve@web.org', chatCount: 10, passes: 0 });
  });

  describe('admin views', () => {
    let admin: ReturnType<ReadSide['client']>;
    beforeAll(async () => {
      admin = side.client();
      const login = await admin.request('POST', '/api/admin-login', ADMIN);
      expect(login.status).toBe(200);
    });

    it('refuse guests and members', async () => {
      const member = side.client();
      await member.request('POST', '/api/register-user', { email: 'mallory@evil.io', password: 'pass1' });
      for (const path of [`/api/admin/members/${ANA}/history`, '/api/admin/posts', '/api/admin/projections']) {
        expect((await side.client().request('GET', path)).status, path).toBe(401);
        expect((await member.request('GET', path)).status, path).toBe(403);
      }
      expect((await member.request('POST', '/api/admin/projections/rebuild')).status).toBe(403);
    });

    it("show a member's history with running balances, and export it as CSV", async () => {
      const res = await admin.request('GET', `/api/admin/members/${CY}/history`);
      expect(res.status).toBe(200);
      const rows = res.body as Array<{ type: string; pointsDelta: number; points: number; passes: number; actor: string }>;
      expect(rows.map((r) => [r.type, r.pointsDelta, r.points, r.passes])).toEqual([
        ['UserRegistered', 10, 10, 0],
        ['PointsPurchased', 100, 110, 0],
        ['PassesClaimed', -20, 90, 1],
        ['CertificatePosted', 0, 90, 1],
        ['ChatMessageSent', -1, 89, 1],
        ['MemberPostDeleted', 0, 89, 1],
        ['PurchaseReversed', -79, 10, 1],
      ]);
      expect(rows[0]!.actor).toBe('system:test');
      // The story: the priority and card after each event. The admin deleted the post later, so
      // its image file is gone and the card before the deletion is shown without it.
      const story = res.body as MemberStoryEntry[];
      expect(story.map((r) => [r.priority, r.card.status])).toEqual([
        ['normalUser', 'none'],
        ['normalUser', 'none'],
        ['normalUser', 'none'],
        ['normalUser', 'shown'],
        ['normalUser', 'shown'],
        ['normalUser', 'none'],
        ['normalUser', 'none'],
      ]);
      expect(story[3]!.card).toEqual({ status: 'shown', fullname: 'Cy', country: 'Peru', link: `https://example.com/${CY}`, message: 'Hi from Lima', imageUrl: null });
      const csv = await admin.request('GET', `/api/admin/members/${CY}/history?format=csv`);
      expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
      expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="?history-u-cy\.csv"?$/);
      const lines = csv.text.trim().split('\r\n');
      // The timeline's columns in their first order, the story's appended.
      expect(lines[0]).toBe(
        'revision,at,type,description,pointsDelta,passesDelta,points,passes,actor,correlationId,priority,card,cardFullname,cardCountry,cardLink,cardMessage,cardImage',
      );
      expect(lines).toHaveLength(8);
      expect(lines[4]).toMatch(new RegExp(`^3,.*,CertificatePosted,Publicó una tarjeta como Cy \\(Peru\\),0,0,90,1,system:test,[^,]*,normalUser,shown,Cy,Peru,https://example.com/${CY},Hi from Lima,$`));
      expect(lines[7]).toMatch(/^6,.*,PurchaseReversed,Compra c2 reembolsada: 1 USD,-79,0,10,1,system:test,[^,]*,normalUser,none,,,,,$/);
      expect((await admin.request('GET', '/api/admin/members/nobody/history')).status).toBe(404);
      expect((await admin.request('GET', `/api/admin/members/${CY}/history?format=xml`)).status).toBe(400);
    });

    it('see whole e-mails in the registry and can look anyone up by e-mail', async () => {
      const res = await admin.request('GET', `/api/registry?q=${encodeURIComponent('CYRUS@site.io')}`);
      expect(res.body.items).toEqual([{ userId: CY, createdAt: '2026-11-03T09:04:00.000Z', member: 'cyrus@site.io', passes: 1, points: 10, priority: 'normalUser' }]);
    });

    it('search posts by name, country or e-mail, with e-mails shown', async () => {
      const res = await admin.request('GET', `/api/admin/posts?q=${encodeURIComponent('bob@mail.org')}`);
      expect(res.body.items).toEqual([expect.objectContaining({ userId: BOB, email: 'bob@mail.org', fullname: 'Bob Stone', points: 11 })]);
      const peru = await admin.request('GET', '/api/admin/posts?q=peru');
      expect(peru.body.items.map((p: { userId: string }) => p.userId)).toEqual([ANA]);
    });

    it('count and list only cards on the site: no member without a card, none whose card was deleted', async () => {
      const all = await admin.request('GET', '/api/admin/posts');
      expect(all.body.items.map((p: { userId: string }) => p.userId)).toEqual([BOB, ANA]);
      expect(all.body.total).toBe(2);
      // Cy's card was deleted: not found by e-mail either.
      expect((await admin.request('GET', `/api/admin/posts?q=${encodeURIComponent('cyrus@site.io')}`)).body).toMatchObject({ total: 0, items: [] });
    });

    it('report where the projections stand', async () => {
      await side.projector.settled();
      const res = await admin.request('GET', '/api/admin/projections');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ lagEvents: 0, lagSeconds: 0, lastError: null, rebuild: { state: 'idle' } });
      expect(res.body.position).toBe(res.body.headPosition);
    });

    it('rebuild the projections on request, with progress, while reads keep answering', async () => {
      const before = await side.readModels.activeId();
      const ranking = (await side.client().request('GET', '/api/ranking')).body;
      const started = await admin.request('POST', '/api/admin/projections/rebuild');
      expect(started.status).toBe(202);
      expect(started.body.rebuild).toMatchObject({ state: 'running', startedAt: expect.any(String) });
      expect((await side.client().request('GET', '/api/ranking')).body).toEqual(ranking);
      await expect.poll(async () => (await admin.request('GET', '/api/admin/projections')).body.rebuild.state, { timeout: 10_000 }).toBe('idle');
      expect(await side.readModels.activeId()).not.toBe(before);
      const done = (await admin.request('GET', '/api/admin/projections')).body;
      expect(done.rebuild.processed).toBe(done.rebuild.total);
      expect((await side.client().request('GET', '/api/ranking')).body).toEqual(ranking);
    });
  });

  it('serves /healthz, /readyz and Prometheus /metrics', async () => {
    const c = side.client();
    expect((await c.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await c.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.map((x: { name: string; ok: boolean }) => [x.name, x.ok])).toEqual([
      ['read-models', true],
      ['event-store', true],
      ['projector', true],
    ]);
    await side.projector.status();
    const metrics = await c.request('GET', '/metrics');
    expect(metrics.text).toMatch(/pass_projector_events_total\{keyspace="ks\w+"\} \d+/);
    expect(metrics.text).toMatch(/pass_query_seconds_bucket\{le="0.005",route="\/api\/main-data",status="200"\}/);
    expect(metrics.text).toMatch(/pass_projector_lag_events\{keyspace="ks\w+"\} 0/);
  });
});
