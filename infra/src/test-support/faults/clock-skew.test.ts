import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { streams, type EventStore } from '@pass/events';
import { openEventStore } from '@pass/events/store';
import { requireService, testPostgresUrl } from '@pass/events/test-support';
import { AdViewTickets, createCommandApi, storeSyncedClock, type Clock, type CommandApi } from '@pass/command-api';
import { RELAXED_ACTION_LIMITS } from '@pass/command-api/test-support';
import { Browser } from '../client';
import { faultTally } from './tally';

/**
 * Clock skew on the free-point rules (a point for a countdown watched 29 s, its ticket issued
 * when it started; one point per countdown and per 30 s). Two command-api instances on one
 * event store whose machine clocks differ by SKEW in each direction; a member alternates
 * between them.
 *
 * The rule is decided on the command side's business time, which follows the event store's
 * clock (`storeSyncedClock`, the default composition): the previous award's time and "now"
 * come from the same clock whichever instance decides. With raw machine clocks (what the code
 * did before), instance B running 20 s ahead let a member earn again 10 s after an award on A,
 * and an award on B blocked the member on A for 50 s. The ad-view ticket is dated by the
 * instance that issues it and checked by the one that awards: on raw clocks a ticket from the
 * slow one is 40 s old at once on the fast one (a point without watching).
 */
const pgUp = await requireService('infra faults: clock skew (PostgreSQL)', testPostgresUrl(), 5432);
const tally = faultTally('clock skew on the free-point countdown');
const SKEW_MS = 20_000;
const SECRET = 's'.repeat(40);
/** Both instances share one installation, so one key for e-mail stream names (else a member joined on one is unknown on the other). */
const EMAIL_STREAM_KEY = Buffer.alloc(32, 0x5c);

interface Instance {
  url: string;
  api: CommandApi;
  close(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'pass-skew-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

async function instance(store: EventStore, clock: Clock): Promise<Instance> {
  const api = await createCommandApi({
    eventStore: store,
    logger: pino({ level: 'silent' }),
    config: { cookieSecure: false, sessionSecret: SECRET, emailStreamKey: EMAIL_STREAM_KEY, uploadsDir: join(dir, 'uploads'), actionLimits: RELAXED_ACTION_LIMITS },
    clock,
  });
  const app = express();
  app.use(api.router);
  const server: Server = createServer(app);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    api,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await api.close();
    },
  };
}

async function openStores(): Promise<{ kind: string; store: EventStore }[]> {
  const stores = [{ kind: 'pglite', store: await openEventStore('pglite:memory') }];
  if (pgUp) {
    const schema = `faults_skew_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const url = new URL(testPostgresUrl());
    url.searchParams.set('schema', schema);
    stores.push({ kind: 'postgres', store: await openEventStore(url.toString()) });
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: testPostgresUrl() });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });
  }
  for (const s of stores) cleanups.push(() => s.store.close());
  return stores;
}

const stores = await openStores();
const behind: Clock = () => new Date(Date.now() - SKEW_MS);
const ahead: Clock = () => new Date(Date.now() + SKEW_MS);

/** A member signed in on both instances. */
async function member(a: Instance, b: Instance): Promise<{ onA: Browser; onB: Browser; id: string }> {
  const credentials = { email: `skew${randomUUID().slice(0, 8)}@example.com`, password: 'pass1' };
  const onA = new Browser(a.url);
  const joined = await onA.request('POST', '/api/register-user', credentials);
  expect([200, 201], JSON.stringify(joined.body)).toContain(joined.status);
  const onB = new Browser(b.url);
  // The same form signs an existing member in.
  const signedIn = await onB.request('POST', '/api/register-user', credentials);
  expect(signedIn.body.id).toBe(joined.body.id);
  return { onA, onB, id: joined.body.id };
}

/** The ticket of a countdown started now on this instance (POST /api/free-point/ticket). */
async function ticketOn(browser: Browser): Promise<{ ticket: string }> {
  const res = await browser.request('POST', '/api/free-point/ticket');
  expect(res.status).toBe(200);
  return { ticket: res.body.ticket };
}

/** Seconds the refusal says are left. */
const secondsLeft = (body: { error: string }) => Number(/in (\d+) seconds/.exec(body.error)?.[1]);

describe.each(stores)('two command-api instances 40 s apart on one $kind store', ({ store }) => {
  it('deciding on the store clock: a countdown counts its real 29 s, one point per countdown, whichever instance issues and decides', async () => {
    const slow = await storeSyncedClock(store, { local: behind });
    const fast = await storeSyncedClock(store, { local: ahead });
    cleanups.push(async () => (slow.stop(), fast.stop()));
    // Each instance measured its own machine's offset from the store's clock.
    expect(Math.abs(slow.offsetMs() - SKEW_MS)).toBeLessThan(1_000);
    expect(Math.abs(fast.offsetMs() + SKEW_MS)).toBeLessThan(1_000);
    const a = await instance(store, slow.clock);
    const b = await instance(store, fast.clock);
    cleanups.push(() => a.close(), () => b.close());

    // A countdown started on the slow one and claimed on the fast one at once: refused, ~28 s left (not a point for 0 s).
    const first = await member(a, b);
    const soonOnFast = await first.onB.request('POST', '/api/free-point', await ticketOn(first.onA));
    expect(soonOnFast.status).toBe(429);
    expect(secondsLeft(soonOnFast.body)).toBeGreaterThanOrEqual(26);
    expect(secondsLeft(soonOnFast.body)).toBeLessThanOrEqual(28);

    // Started on the fast one, claimed on the slow one: ~28 s left, not 68 s.
    const second = await member(a, b);
    const soonOnSlow = await second.onA.request('POST', '/api/free-point', await ticketOn(second.onB));
    expect(soonOnSlow.status).toBe(429);
    expect(secondsLeft(soonOnSlow.body)).toBeGreaterThanOrEqual(26);
    expect(secondsLeft(soonOnSlow.body)).toBeLessThanOrEqual(28);

    // A countdown that ran (its ticket signed 29 s ago on the store clock, as the instance would have
    // issued it then) earns on the slow one; the fast one agrees it is spent, and that a new one has not run.
    const watched = { ticket: new AdViewTickets(SECRET).issue(first.id, new Date(slow.clock().getTime() - 29_000)).ticket };
    expect((await first.onA.request('POST', '/api/free-point', watched)).status).toBe(200);
    expect((await first.onB.request('POST', '/api/free-point', watched)).status).toBe(409);
    const next = await first.onB.request('POST', '/api/free-point', await ticketOn(first.onB));
    expect(next.status).toBe(429);
    expect(secondsLeft(next.body)).toBeGreaterThanOrEqual(26);

    for (const [m, points] of [[first, 1], [second, 0]] as const) {
      const awarded = (await store.readStream(streams.user(m.id))).filter((e) => e.type === 'FreePointAwarded');
      expect(awarded).toHaveLength(points);
    }
    tally.note('skewed awards refused', 4);
  });

  it('with raw machine clocks the skew shows (why the store clock is the default)', async () => {
    const a = await instance(store, behind);
    const b = await instance(store, ahead);
    cleanups.push(() => a.close(), () => b.close());
    const m = await member(a, b);
    // Started on A, claimed on B at once: B's clock says 40 s have passed, a point without watching.
    expect((await m.onB.request('POST', '/api/free-point', await ticketOn(m.onA))).status).toBe(200);
    const n = await member(a, b);
    const held = await n.onA.request('POST', '/api/free-point', await ticketOn(n.onB));
    expect(held.status).toBe(429);
    expect(secondsLeft(held.body)).toBeGreaterThan(60);
  });
});
