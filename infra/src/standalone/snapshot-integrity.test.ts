import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PURCHASE_OPTIONS } from '@pass/events';
import { smallPng } from '@pass/command-api/test-support';
import { dropLastParts, resealSnapshot } from '@pass/projector/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * The read-model snapshot in DATA_DIR edited while the server is stopped, as someone who can
 * write that folder (but does not hold the installation's secret) would: the next start must
 * answer what the events say, never what the file was made to say. The cases run in order on
 * one DATA_DIR; each starts from the valid snapshot the first stop wrote.
 */
const ADMIN = { email: 'admin@example.com', password: 'admin-pass-123' };
const ANN = { email: 'ann.snapshot@example.com', password: 'pass1', fullname: 'Ann Cardname' };
const dataDir = mkdtempSync(join(tmpdir(), 'standalone-snapshot-integrity-'));
const snapshotFile = join(dataDir, 'read-models.snapshot');
const running: SpawnedService[] = [];
// A case that fails midway must not leave its server holding DATA_DIR for the next one.
afterEach(async () => {
  for (const app of running.splice(0)) await app.stop('SIGKILL');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(): Promise<SpawnedService> {
  const app = await spawnStandalone({ DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  running.push(app);
  await expect.poll(async () => (await fetch(`${app.url}/readyz`)).status, { timeout: 30_000, interval: 100 }).toBe(200);
  return app;
}

/** What a guest is shown: the figures, the ranking, the registry (names and points) and the chat. */
async function shown(url: string) {
  const guest = new Browser(url);
  const get = async (path: string) => (await guest.request('GET', path)).body as unknown;
  return {
    main: await get('/api/main-data'),
    countries: await get('/api/countries'),
    ranking: await get('/api/ranking?pageSize=50'),
    registry: await get('/api/registry?pageSize=50'),
    chat: await get('/api/chat-messages?limit=50'),
  };
}

type Log = Record<string, unknown>;
const logs = (app: SpawnedService): Log[] =>
  app.logs.flatMap((line) => {
    try {
      return [JSON.parse(line) as Log];
    } catch {
      return [];
    }
  });
const DISCARDED = 'read-model snapshot not used; rebuilding from the events';
const restored = (app: SpawnedService) => logs(app).filter((l) => l.msg === 'read models restored from snapshot').length;
const subscribedFrom = (app: SpawnedService) => logs(app).find((l) => l.msg === 'projector subscribing')?.from;

/** What the events say, read from the first run (which replayed them); and the first stop's snapshot. */
let truth: Awaited<ReturnType<typeof shown>>;
let valid: Buffer;
let annId: string;

/** `valid` with every `from` replaced by `to` (same length). */
function edited(from: string, to: string): Buffer {
  expect(to.length).toBe(from.length);
  const text = valid.toString('latin1');
  expect(text).toContain(from);
  return Buffer.from(text.replaceAll(from, to), 'latin1');
}

/** Starts on `bytes` as the snapshot; checks the events are served, with one warning line and a replay. */
async function discardedOnStart(bytes: Buffer): Promise<SpawnedService> {
  writeFileSync(snapshotFile, bytes);
  const app = await start();
  expect(await shown(app.url)).toEqual(truth);
  const warnings = app.logs.filter((line) => line.includes(DISCARDED));
  expect(warnings).toHaveLength(1);
  for (const personal of [ANN.email, ANN.fullname, 'Eve Cardname', annId]) expect(warnings[0]).not.toContain(personal);
  expect(restored(app)).toBe(0);
  expect(subscribedFrom(app)).toBe('start');
  return app;
}

describe('standalone: the read-model snapshot proves itself', { timeout: 120_000 }, () => {
  it('a first run writes its snapshot at the stop', async () => {
    const app = await start();
    const ann = new Browser(app.url);
    const joined = await ann.request('POST', '/api/register-user', { email: ANN.email, password: ANN.password });
    expect(joined.status).toBe(201);
    annId = joined.body.id;
    const order = await ann.request('POST', '/api/payments/orders', { amountUsd: PURCHASE_OPTIONS[1]!.amountUsd });
    expect((await ann.request('POST', `/api/payments/orders/${order.body.orderId as string}/capture`, {})).status).toBe(200);
    const form = new FormData();
    for (const [k, v] of Object.entries({ fullname: ANN.fullname, country: 'Spain', email: ANN.email, link: 'https://ann.example/page', message: 'ann card message', passes: '1' })) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'me.png');
    const posted = await fetch(`${app.url}/api/register-special-user`, { method: 'POST', headers: { cookie: ann.cookieHeader() }, body: form });
    expect(posted.status).toBe(200);
    expect((await ann.request('POST', '/api/chat-messages', { message: 'ann says hello to everyone here' })).status).toBe(201);
    for (let i = 0; i < 12; i++) {
      const member = new Browser(app.url);
      expect((await member.request('POST', '/api/register-user', { email: `member${i}.snapshot@example.com`, password: `pass${i}` })).status).toBe(201);
    }
    await expect.poll(async () => ((await shown(app.url)).registry as { total: number }).total, { timeout: 10_000 }).toBe(13);
    truth = await shown(app.url);
    expect(JSON.stringify(truth.registry)).toContain(ANN.fullname);
    expect(await app.stop('SIGTERM')).toBe(0);
    valid = readFileSync(snapshotFile);
  });

  it('a valid snapshot still loads: the restart replays only the events after it', async () => {
    writeFileSync(snapshotFile, valid);
    const app = await start();
    expect(await shown(app.url)).toEqual(truth);
    expect(restored(app)).toBe(1);
    expect(app.logs.some((line) => line.includes(DISCARDED))).toBe(false);
    expect(subscribedFrom(app)).not.toBe('start');
    expect(await app.stop('SIGTERM')).toBe(0);
  });

  it("a member's name edited in the file (same length) is not served, and a stop with no new event leaves no edited file behind", async () => {
    const app = await discardedOnStart(edited(ANN.fullname, 'Eve Cardname'));
    expect(await app.stop('SIGTERM')).toBe(0);
    // Nothing happened between the two starts: the next one loads what the stop wrote, not the edit.
    expect(readFileSync(snapshotFile).includes('Eve Cardname')).toBe(false);
    const again = await start();
    expect(await shown(again.url)).toEqual(truth);
    expect(restored(again)).toBe(1);
    expect(await again.stop('SIGTERM')).toBe(0);
  });

  it("a member's points figure edited in the file (same length) is not served", async () => {
    const text = valid.toString('latin1');
    const row = new RegExp(`\\["${annId}",(?:"[^"]*",){2}(\\d+),`).exec(text);
    expect(row).not.toBeNull();
    const points = row![1]!;
    const other = `${points[0] === '9' ? '8' : '9'}${points.slice(1)}`;
    const app = await discardedOnStart(edited(row![0], row![0].replace(`,${points},`, `,${other},`)));
    expect(await app.stop('SIGTERM')).toBe(0);
  });

  it('64 random bytes written over the middle of the file are noticed', async () => {
    const bytes = Buffer.from(valid);
    randomBytes(64).copy(bytes, Math.floor(bytes.length / 2) - 32);
    const app = await discardedOnStart(bytes);
    expect(await app.stop('SIGTERM')).toBe(0);
  });

  it('a truncated file is noticed: cut anywhere, or down to whole parts with its part count lowered to match', async () => {
    const cut = await discardedOnStart(valid.subarray(0, Math.floor(valid.length / 2)));
    expect(await cut.stop('SIGTERM')).toBe(0);
    const shortened = await discardedOnStart(dropLastParts(valid, 1));
    expect(await shortened.stop('SIGTERM')).toBe(0);
  });

  it("a snapshot sealed by another installation (another secret) is not used", async () => {
    const app = await discardedOnStart(resealSnapshot(edited(ANN.fullname, 'Eve Cardname'), randomBytes(32).toString('base64url')));
    expect(await app.stop('SIGTERM')).toBe(0);
  });

  it('after an admin rebuild, a restart serves the rebuilt read models, not the snapshot the rebuild healed', async () => {
    // A snapshot that proves itself yet disagrees with the events (as one written by faulty
    // projection code would): sealed with this installation's own secret.
    const ownSecret = readFileSync(join(dataDir, 'session-secret'), 'utf8').trim();
    writeFileSync(snapshotFile, resealSnapshot(edited(ANN.fullname, 'Eve Cardname'), ownSecret));
    const app = await start();
    expect(restored(app)).toBe(1);
    expect(JSON.stringify((await shown(app.url)).registry)).toContain('Eve Cardname');

    const admin = new Browser(app.url);
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
    expect((await admin.request('POST', '/api/admin/projections/rebuild')).status).toBe(202);
    await expect
      .poll(async () => (await admin.request('GET', '/api/admin/projections')).body.rebuild, { timeout: 30_000, interval: 200 })
      .toMatchObject({ state: 'idle', startedAt: expect.any(String) });
    expect(await shown(app.url)).toEqual(truth);
    // The rebuild itself replaced the file: even a crash right after it restores the healed state.
    await expect.poll(() => logs(app).some((l) => l.msg === 'read-model snapshot written' && l.reason === 'rebuild'), { timeout: 30_000 }).toBe(true);
    await app.stop('SIGKILL');
    expect(existsSync(snapshotFile)).toBe(true);

    const again = await start();
    expect(await shown(again.url)).toEqual(truth);
    expect(restored(again)).toBe(1);
    expect(await again.stop('SIGTERM')).toBe(0);
    const last = await start();
    expect(await shown(last.url)).toEqual(truth);
    expect(await last.stop('SIGTERM')).toBe(0);
  });
});
