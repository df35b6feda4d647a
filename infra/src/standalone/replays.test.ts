import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundsRaised, PURCHASE_OPTIONS, type MainDataView, type Page, type RegistryRow, type ReplayDiff } from '@pass/events';
import { smallPng } from '@pass/command-api/test-support';
import { parseSettings } from '../config/settings';
import { Browser } from '../test-support/client';
import { startStandalone, type RunningStandalone } from './compose';

const ADMIN = { email: 'admin@example.com', password: 'admin-pass-123' };
/** The public reads a replay answers again, as the admin asks for them. */
const READS = ['main-data', 'countries', 'ranking?page=1&pageSize=100', 'ranking?q=spain', 'registry?page=1&pageSize=100', 'chat-messages?limit=50'] as const;

interface Moment {
  label: string;
  position: string;
  at: string;
  bodies: Record<(typeof READS)[number], unknown>;
}

describe('standalone: the site as of a moment', () => {
  let app: RunningStandalone;
  let dataDir: string;
  let admin: Browser;
  let addresses = 0;
  const moments: Moment[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pass-replays-'));
    const settings = parseSettings({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      EVENT_STORE_URL: 'pglite:memory',
      WEB_DIST_DIR: join(dataDir, 'no-web-app'),
      SESSION_SECRET: 's'.repeat(40),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'silent',
    });
    app = await startStandalone(settings, pino({ level: 'silent' }));
    admin = new Browser(app.url);
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** A browser of its own address (the per-address limits stay out of the way). */
  const browser = () => {
    const b = new Browser(app.url);
    b.address = `10.9.0.${++addresses}`;
    return b;
  };
  const join_ = async (email: string) => {
    const b = browser();
    const res = await b.request('POST', '/api/register-user', { email, password: 'pass1' });
    expect(res.status).toBe(201);
    return { b, id: res.body.id as string };
  };
  const buy = async (b: Browser) => {
    const order = await b.request('POST', '/api/payments/orders', { amountUsd: PURCHASE_OPTIONS[0]!.amountUsd });
    expect((await b.request('POST', `/api/payments/orders/${order.body.orderId as string}/capture`, {})).status).toBe(200);
  };
  const claim = async (b: Browser, fullname: string, country: string, email: string, passes: number) => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ fullname, country, email, link: `https://${country.toLowerCase()}.example/page`, message: `${fullname} was here`, passes: String(passes) })) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'me.png');
    const posted = await fetch(`${app.url}/api/register-special-user`, { method: 'POST', headers: { cookie: b.cookieHeader(), 'x-forwarded-for': b.address! }, body: form });
    expect(posted.status, await posted.text()).toBe(200);
  };

  /** Once the read models hold every event: where the site stands, what its public reads answer, and a time after it. */
  const record = async (label: string) => {
    await expect.poll(async () => (await admin.request('GET', '/api/admin/projections')).body.lagEvents, { timeout: 10_000 }).toBe(0);
    const { position } = (await admin.request('GET', '/api/admin/projections')).body as { position: string };
    const bodies = {} as Moment['bodies'];
    for (const read of READS) bodies[read] = (await admin.request('GET', `/api/${read}`)).body;
    moments.push({ label, position, at: new Date().toISOString(), bodies });
    // The next act's events are recorded after `at`, not in its millisecond.
    await new Promise((done) => setTimeout(done, 3));
  };

  const replay = async (request: { at: string } | { position: string }) => {
    const started = await admin.request('POST', '/api/admin/replays', request);
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    await expect.poll(async () => (await admin.request('GET', `/api/admin/replays/${id}`)).body.status, { timeout: 30_000 }).toBe('ready');
    return id;
  };

  it('answers, for each moment, what the public reads answered then; the member erased since is out of them', { timeout: 240_000 }, async () => {
    const ann = await join_('ann.replay@example.com');
    const eve = await join_('eve.replay@example.com');
    await record('Ann and Eve join');
    await buy(ann.b);
    await record('Ann buys points');
    await claim(ann.b, 'Ann Replay', 'Spain', 'ann.replay@example.com', 2);
    await record('Ann claims two passes');
    const bob = await join_('bob.replay@example.com');
    await buy(bob.b);
    await claim(bob.b, 'Bob Replay', 'Chile', 'bob.replay@example.com', 4);
    expect((await bob.b.request('POST', '/api/chat-messages', { message: 'hola desde Chile' })).status).toBe(201);
    expect((await ann.b.request('POST', '/api/chat-messages', { message: 'hello from Spain' })).status).toBe(201);
    await record('Bob joins, claims four passes; both chat');
    const edited = await admin.request('PUT', '/api/main-data', { available: 500, cpm: 3, donations: 12.5, startDate: '01/12/2026' });
    expect(edited.status).toBe(200);
    await record('the admin edits the main data');
    const madeBefore = await replay({ position: moments[moments.length - 1]!.position });
    const registryBefore = (await admin.request('GET', `/api/admin/replays/${madeBefore}/registry?pageSize=100`)).body as Page<RegistryRow>;
    expect(registryBefore.items.map((row) => row.userId)).toContain(eve.id);
    expect((await admin.request('DELETE', `/api/admin/members/${eve.id}`)).status).toBe(204);
    await record('Eve is erased');
    // A replay made before she was erased no longer shows her either.
    expect((await admin.request('GET', `/api/admin/replays/${madeBefore}/registry?pageSize=100`)).body).toEqual(withoutMember(registryBefore, eve.id));
    expect((await admin.request('DELETE', `/api/admin/replays/${madeBefore}`)).status).toBe(204);

    for (const [i, moment] of moments.entries()) {
      // Every other moment by time, the others by position.
      const id = await replay(i % 2 === 0 ? { position: moment.position } : { at: moment.at });
      const status = (await admin.request('GET', `/api/admin/replays/${id}`)).body;
      expect(status.position, moment.label).toBe(moment.position);
      for (const read of READS) {
        const body = (await admin.request('GET', `/api/admin/replays/${id}/${read}`)).body as unknown;
        expect(body, `${moment.label}: ${read}`).toEqual(read.startsWith('registry') ? withoutMember(moment.bodies[read] as Page<RegistryRow>, eve.id) : moment.bodies[read]);
      }
      expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
    }
  });

  it('compares a moment with now: members joined, passes, funds and the ranking movers', { timeout: 60_000 }, async () => {
    const first = moments[1]!;
    const id = await replay({ position: first.position });
    const diff = (await admin.request('GET', `/api/admin/replays/${id}/diff/now`)).body as ReplayDiff;
    const then = first.bodies['main-data'] as MainDataView;
    const now = moments[moments.length - 1]!.bodies['main-data'] as MainDataView;
    expect(diff.then).toEqual({ id, at: expect.any(String), position: first.position });
    expect(diff.now).toMatchObject({ id: 'now' });
    expect(diff.members).toMatchObject({ then: then.members, now: now.members, joined: 1, left: 0, joinedSample: [{ name: 'Bob Replay', rankNow: null, passesNow: 4 }] });
    expect(diff.passes).toEqual({ then: then.sold, now: now.sold, moved: now.sold - then.sold });
    expect(diff.funds).toEqual({ then: fundsRaised(then), now: fundsRaised(now), moved: expect.closeTo(fundsRaised(now) - fundsRaised(then), 2) });
    expect(diff.movers.map((m) => [m.name, m.rankThen, m.rankNow, m.passesThen, m.passesNow])).toEqual([
      ['Bob Replay', null, 1, 0, 4],
      ['Ann Replay', null, 2, 0, 2],
    ]);
    // The other way round, from now back to that moment.
    const back = (await admin.request('GET', `/api/admin/replays/now/diff/${id}`)).body as ReplayDiff;
    expect(back.members).toMatchObject({ joined: 0, left: 1 });
    expect(back.passes.moved).toBe(-diff.passes.moved);
  });
});

/** A registry page without one member's row: what the site shows of it once that member is erased. */
function withoutMember(page: Page<RegistryRow>, userId: string): Page<RegistryRow> {
  const items = page.items.filter((row) => row.userId !== userId);
  return { ...page, total: page.total - (page.items.length - items.length), items };
}
