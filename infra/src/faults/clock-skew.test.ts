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
import { openEventStore } from '@pass/events/event-store/open';
import { requireService, testPostgresUrl } from '@pass/events/testing/services';
import { createCommandApi, storeSyncedClock, type Clock, type CommandApi } from '@pass/command-api';
import { RELAXED_ACTION_LIMITS } from '@pass/command-api/testing/harness';
import { Browser } from '../testing/client';
import { faultTally } from './tally';

/**
 * Clock skew on the free-point rule (at most one free point per 30 s per member). Two
 * command-api instances on one event store whose machine clocks differ by SKEW in each
 * direction; a member alternates between them.
 *
 * The rule is decided on the command side's business time, which follows the event store's
 * clock (`storeSyncedClock`, the default composition): the previous award's time and "now"
 * come from the same clock whichever instance decides. With raw machine clocks (what the code
 * did before), instance B running 20 s ahead let a member earn again 10 s after an award on A,
 * and an award on B blocked the member on A for 50 s.
 */
const pgUp = await requireService('infra faults: clock skew (PostgreSQL)', testPostgresUrl(), 5432);
const tally = faultTally('clock skew on the 30 s free-point rule');
const SKEW_MS = 20_000;

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
    config: { cookieSecure: false, sessionSecret: 's'.repeat(40), uploadsDir: join(dir, 'uploads'), actionLimits: RELAXED_ACTION_LIMITS },
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

describe.each(stores)('two command-api instances 40 s apart on one $kind store', ({ store }) => {
  it('deciding on the store clock: no second point within 30 s, and no wait beyond 30 s, whichever instance decides', async () => {
    const slow = await storeSyncedClock(store, { local: behind });
    const fast = await storeSyncedClock(store, { local: ahead });
    cleanups.push(async () => (slow.stop(), fast.stop()));
    // Each instance measured its own machine's offset from the store's clock.
    expect(Math.abs(slow.offsetMs() - SKEW_MS)).toBeLessThan(1_000);
    expect(Math.abs(fast.offsetMs() + SKEW_MS)).toBeLessThan(1_000);
    const a = await instance(store, slow.clock);
    const b = await instance(store, fast.clock);
    cleanups.push(() => a.close(), () => b.close());

    // Award on the slow one, ask on the fast one at once: refused, and told ~30 s (not 10 s, not 70 s).
    const first = await member(a, b);
    expect((await first.onA.request('POST', '/api/free-point')).status).toBe(200);
    const soonOnFast = await first.onB.request('POST', '/api/free-point');
    expect(soonOnFast.status).toBe(429);
    const wait1 = Number(/in (\d+) seconds/.exec(soonOnFast.body.error)?.[1]);
    expect(wait1).toBeGreaterThanOrEqual(28);
    expect(wait1).toBeLessThanOrEqual(30);

    // Award on the fast one, ask on the slow one: refused with ~30 s, not 50 s.
    const second = await member(a, b);
    expect((await second.onB.request('POST', '/api/free-point')).status).toBe(200);
    const soonOnSlow = await second.onA.request('POST', '/api/free-point');
    expect(soonOnSlow.status).toBe(429);
    const wait2 = Number(/in (\d+) seconds/.exec(soonOnSlow.body.error)?.[1]);
    expect(wait2).toBeGreaterThanOrEqual(28);
    expect(wait2).toBeLessThanOrEqual(30);

    for (const m of [first, second]) {
      const awarded = (await store.readStream(streams.user(m.id))).filter((e) => e.type === 'FreePointAwarded');
      expect(awarded).toHaveLength(1);
    }
    tally.note('skewed awards refused', 2);
  });

  it('with raw machine clocks the skew shows (why the store clock is the default)', async () => {
    const a = await instance(store, behind);
    const b = await instance(store, ahead);
    cleanups.push(() => a.close(), () => b.close());
    const m = await member(a, b);
    expect((await m.onA.request('POST', '/api/free-point')).status).toBe(200);
    // 40 s "later" on B's clock: a second point at once.
    expect((await m.onB.request('POST', '/api/free-point')).status).toBe(200);
    const n = await member(a, b);
    expect((await n.onB.request('POST', '/api/free-point')).status).toBe(200);
    const held = await n.onA.request('POST', '/api/free-point');
    expect(held.status).toBe(429);
    expect(Number(/in (\d+) seconds/.exec(held.body.error)?.[1])).toBeGreaterThan(60);
  });
});
