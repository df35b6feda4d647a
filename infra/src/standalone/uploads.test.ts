import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { PURCHASE_OPTIONS } from '@pass/events';
import { eventually } from '@pass/events/test-support';
import { smallPng } from '@pass/command-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

// The upload lifecycle: one live card image per member, withdrawn files answer 404,
// and a start sweeps what a crash left behind.
const dataDir = mkdtempSync(join(tmpdir(), 'standalone-uploads-'));
const uploadsDir = join(dataDir, 'uploads');
const ADMIN = { email: 'uploads-admin@example.com', password: 'admin-pass-123' };
let app: SpawnedService;
let seq = 0;

const start = () => spawnStandalone({ DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
beforeAll(async () => {
  app = await start();
}, 60_000);
afterAll(async () => {
  await app?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Member {
  browser: Browser;
  id: string;
  email: string;
}

/** A new member with 110 points (5 passes): the 10 of joining and $1 bought in test mode. */
async function newMember(): Promise<Member> {
  const browser = new Browser(app.url);
  const email = `card${++seq}@example.com`;
  const joined = await browser.request('POST', '/api/register-user', { email, password: 'pass1' });
  expect(joined.status).toBe(201);
  const order = await browser.request('POST', '/api/payments/orders', { amountUsd: PURCHASE_OPTIONS[0]!.amountUsd });
  expect((await browser.request('POST', `/api/payments/orders/${order.body.orderId as string}/capture`, {})).status).toBe(200);
  return { browser, id: joined.body.id as string, email };
}

/** The post form as the web sends it; `image` omitted keeps the card's image. */
async function postCard(m: Member, passes: number, image?: Buffer): Promise<{ status: number; body: { user?: { image: { url: string; path: string } } } }> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ fullname: 'Card Holder', country: 'Spain', email: m.email, link: 'https://example.com/me', message: 'Hello', passes: String(passes) })) form.set(k, v);
  if (image) form.set('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'me.png');
  const res = await fetch(`${m.browser.origin}/api/register-special-user`, { method: 'POST', headers: { cookie: m.browser.cookieHeader() }, body: form });
  return { status: res.status, body: (await res.json()) as never };
}

/** Every file in the uploads folder, as paths under it. */
function storedFiles(): string[] {
  const files = readdirSync(uploadsDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return files.map((e) => relative(uploadsDir, join(e.parentPath, e.name)).split('\\').join('/')).sort();
}
const filesOf = (memberId: string) => storedFiles().filter((path) => path.includes(memberId));

async function expectWithdrawn(url: string, path: string) {
  const res = await fetch(app.url + url, { headers: { accept: 'text/html,image/*,*/*' } });
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type') ?? '').not.toMatch(/html/);
  expect(existsSync(join(uploadsDir, path))).toBe(false);
}

describe('card images over their life, standalone over real HTTP', () => {
  it('replacing the image withdraws the old one (404, file gone); the member holds exactly one file; the cache header lets it be withdrawn', async () => {
    const m = await newMember();
    const first = await postCard(m, 1, await smallPng());
    expect(first, JSON.stringify(first.body)).toMatchObject({ status: 200 });
    const a = first.body.user!.image;
    const served = await fetch(app.url + a.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(served.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    expect(served.headers.get('etag')).toBeTruthy();

    const second = await postCard(m, 0, await smallPng());
    expect(second.status).toBe(200);
    const b = second.body.user!.image;
    expect(b.url).not.toBe(a.url);
    await expectWithdrawn(a.url, a.path);
    expect((await fetch(app.url + b.url)).status).toBe(200);

    // An edit without an image keeps it; the next image replaces it.
    const kept = await postCard(m, 0);
    expect(kept.body.user!.image).toEqual(b);
    expect(filesOf(m.id)).toEqual([b.path]);
    const third = await postCard(m, 1, await smallPng());
    expect(third.status).toBe(200);
    const c = third.body.user!.image;
    await expectWithdrawn(b.url, b.path);
    expect(filesOf(m.id)).toEqual([c.path]);
    expect(storedFiles().filter((path) => path.startsWith('incoming/'))).toEqual([]);
  });

  it("an admin deleting a member's post withdraws its image (404, file gone)", async () => {
    const m = await newMember();
    const posted = await postCard(m, 1, await smallPng());
    expect(posted.status).toBe(200);
    const image = posted.body.user!.image;
    expect((await fetch(app.url + image.url)).status).toBe(200);

    const admin = new Browser(app.url);
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
    expect((await admin.request('DELETE', `/api/member-post/${m.id}`)).status).toBe(204);
    await expectWithdrawn(image.url, image.path);
    expect(filesOf(m.id)).toEqual([]);
  });

  it('a refused post leaves no file: of three posts at once spending every point, one holds the only image', async () => {
    const m = await newMember();
    const png = await smallPng();
    const answers = await Promise.all([1, 2, 3].map(() => postCard(m, 5, png)));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(filesOf(m.id)).toEqual([accepted[0]!.body.user!.image.path]);
    expect(storedFiles().filter((path) => path.startsWith('incoming/'))).toEqual([]);
  });

  it('a start sweeps files no card holds once they are older than the grace; a held one and a young one stay', async () => {
    const m = await newMember();
    const posted = await postCard(m, 1, await smallPng());
    expect(posted.status).toBe(200);
    const live = posted.body.user!.image;
    expect(await app.stop('SIGTERM')).toBe(0);

    // What crashes leave: a replaced image not yet deleted, an upload never posted, a card of a
    // post never appended; and an upload of another process still in flight (young).
    const imageId = () => randomBytes(16).toString('hex');
    const shard = `cards/${m.id.slice(0, 2)}`;
    const unknownMember = '00000000-0000-4000-8000-000000000000';
    const old = [`${shard}/${m.id}.${imageId()}.webp`, `incoming/${imageId()}.webp`, `cards/00/${unknownMember}.${imageId()}.webp`];
    const young = `${shard}/${m.id}.${imageId()}.webp`;
    // The interrupted changes' markers (card-images.ts markCardChange).
    const markers = [`pending/${m.id}.${randomBytes(8).toString('hex')}`, `pending/${unknownMember}.${randomBytes(8).toString('hex')}`];
    for (const path of [...old, young, ...markers]) {
      mkdirSync(dirname(join(uploadsDir, path)), { recursive: true });
      writeFileSync(join(uploadsDir, path), 'not an image anyone holds');
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    for (const path of [...old, ...markers, live.path]) utimesSync(join(uploadsDir, path), twoHoursAgo, twoHoursAgo);

    app = await start();
    await eventually(() => expect(app.logs.some((line) => line.includes('"orphan sweep done"'))).toBe(true), 30_000);
    for (const path of [...old, ...markers]) expect(existsSync(join(uploadsDir, path)), path).toBe(false);
    expect(existsSync(join(uploadsDir, young))).toBe(true);
    expect(existsSync(join(uploadsDir, live.path))).toBe(true);
    expect((await fetch(app.url + live.url)).status).toBe(200);
  }, 90_000);
});
