import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_MESSAGES, streams } from '@pass/events';
import { jpegWithExif, PDF, smallPng, WINDOWS_EXE } from '../test-support/images';
import { ADMIN, startHarness, type Browser, type Harness } from '../test-support/harness';
import type { SimulatedPaymentProvider } from '../payments/provider/simulated-provider';

let h: Harness;
let admin: Browser;
let n = 0;

beforeAll(async () => {
  h = await startHarness();
  admin = h.browser();
  expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
  expect((await admin.request('PUT', '/api/main-data', { available: 100, cpm: 1, donations: 0, startDate: '1/5/2026' })).status).toBe(200);
});
afterAll(async () => {
  await h?.close();
});

/** A member holding `usd` dollars of bought points (plus the 10 of every new member). */
async function member(usd = 0) {
  const b = h.browser();
  const email = `poster${++n}@example.com`;
  const res = await b.request('POST', '/api/register-user', { email, password: 'pass1' });
  const id = res.body.id as string;
  if (usd > 0) {
    const provider = h.api.payments as SimulatedPaymentProvider;
    const { orderId } = await provider.createOrder(id, usd);
    await provider.captureOrder(orderId);
    expect((await b.request('POST', '/api/buy-points', { orderId })).status).toBe(200);
  }
  return { b, id, email };
}

type Fields = Partial<Record<'fullname' | 'country' | 'email' | 'link' | 'message' | 'passes', string>>;
function postForm(email: string, fields: Fields = {}, image?: { bytes: Buffer; name: string; type: string } | null) {
  const form = new FormData();
  const values: Fields = { fullname: 'Ana Lopez', country: 'Spain', email, link: 'https://ana.example.com', message: 'Hello everyone', passes: '1', ...fields };
  for (const [k, v] of Object.entries(values)) if (v !== undefined) form.set(k, v);
  if (image !== null) {
    const file = image ?? { bytes: Buffer.alloc(0), name: '', type: '' };
    if (file.bytes.length > 0) form.set('image', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  }
  return form;
}

describe('POST /api/register-special-user', () => {
  it('posts the certificate, claims the passes and stores a re-encoded image without metadata', async () => {
    const { b, id, email } = await member(1);
    const photo = await jpegWithExif();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const res = await b.form('/api/register-special-user', postForm(email, { passes: '2' }, { bytes: photo, name: 'me.jpg', type: 'image/jpeg' }));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect(res.body.user).toMatchObject({ fullname: 'Ana Lopez', country: 'Spain', passes: 2, chatCount: 110 - 40, priority: 'normalUser' });
    const image = res.body.user.image as { url: string; path: string; public_id: string };
    // Under the member's name (the orphan sweep reads whose it is), never the upload's name.
    expect(image.url).toBe(`/uploads/cards/${id.slice(0, 2)}/${id}.${image.public_id}.webp`);
    expect(image.public_id).toMatch(/^[0-9a-f]{32}$/);

    const stored = await readFile(join(h.uploadsDir, image.path));
    const meta = await sharp(stored).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(1024);
    expect(meta.exif).toBeUndefined();
    const served = await fetch(h.url + image.url);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(stored)).toBe(true);
  });

  it('updates the certificate with 0 passes and keeps the image when none is sent', async () => {
    const { b, email } = await member(1);
    const first = await b.form('/api/register-special-user', postForm(email, {}, { bytes: await smallPng(), name: 'a.png', type: 'image/png' }));
    expect(first.status).toBe(200);
    const res = await b.form('/api/register-special-user', postForm(email, { passes: '0', fullname: 'Ana B' }, null));
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ fullname: 'Ana B', passes: 1, image: first.body.user.image });
  });

  it.each([
    ['fullname', '', 'Please enter your full name'],
    ['fullname', 'A', 'Enter a valid name'],
    ['fullname', 'A'.repeat(21), 'Please do not exceed 20 characters'],
    ['country', '', 'Please enter a country'],
    ['email', '', 'Please enter an email'],
    ['email', 'a@b.com', 'Please enter a valid email'],
    ['email', `${'a'.repeat(45)}@example.com`, 'Please enter an email less than 50 characters long'],
    ['email', 'someone.else@example.com', 'Your email must match the one registered'],
    ['link', '', 'Enter your personal link'],
    ['link', 'http://a', 'Please enter a valid link'],
    ['link', `https://example.com/${'x'.repeat(600)}`, 'Your link is too long, consider using a link shortener.'],
    ['link', 'javascript:alert(1)//xx', 'Please enter a valid link'],
    ['message', '', 'Please enter a message'],
    ['message', 'abc', 'Enter at least 4 character'],
    ['message', 'x'.repeat(101), 'Do not exceed 100 characters'],
  ])('refuses %s=%j with "%s" and records nothing', async (field, value, message) => {
    const { b, email } = await member(1);
    const before = (await h.store.readStream(streams.user((await h.api.sessions.verify(`pass_session=${b.cookies.get('pass_session')}`)).user!.id))).length;
    const res = await b.form('/api/register-special-user', postForm(email, { [field]: value }, { bytes: await smallPng(), name: 'a.png', type: 'image/png' }));
    expect(res.status).toBe(400);
    expect(res.body.fields[field]).toBe(message);
    const after = (await h.store.readStream(streams.user((await h.api.sessions.verify(`pass_session=${b.cookies.get('pass_session')}`)).user!.id))).length;
    expect(after).toBe(before);
  });

  it.each([
    ['no image at all', null, IMAGE_MESSAGES.notChosen],
    ['a PDF', { bytes: PDF, name: 'cv.pdf', type: 'application/pdf' }, IMAGE_MESSAGES.forbidden],
    ['a PDF renamed to .png', { bytes: PDF, name: 'cv.png', type: 'image/png' }, IMAGE_MESSAGES.forbidden],
    ['an executable', { bytes: WINDOWS_EXE, name: 'setup.exe', type: 'application/x-msdownload' }, IMAGE_MESSAGES.forbidden],
    ['an executable renamed to .jpg', { bytes: WINDOWS_EXE, name: 'me.jpg', type: 'image/jpeg' }, IMAGE_MESSAGES.forbidden],
    ['a text file', { bytes: Buffer.from('hello there, not an image'), name: 'a.txt', type: 'text/plain' }, IMAGE_MESSAGES.notImage],
    ['text pretending to be an image', { bytes: Buffer.from('hello there, not an image'), name: 'a.png', type: 'image/png' }, IMAGE_MESSAGES.notImage],
  ])('refuses %s', async (_label, image, message) => {
    const { b, email } = await member(1);
    const res = await b.form('/api/register-special-user', postForm(email, {}, image));
    expect(res.status).toBe(400);
    expect(res.body.fields.image).toBe(message);
  });

  it('refuses an empty image file', async () => {
    const { b, email } = await member(1);
    const form = postForm(email, {}, null);
    form.set('image', new Blob([], { type: 'image/png' }), 'empty.png');
    const res = await b.form('/api/register-special-user', form);
    expect(res.status).toBe(400);
    expect(res.body.fields.image).toBe(IMAGE_MESSAGES.required);
  });

  it('caps the passes at what is available (spec: the smaller of available and points/20)', async () => {
    const { b, email } = await member(5); // 510 points: 25 passes' worth
    expect((await admin.request('PUT', '/api/main-data', { available: 3, cpm: 1, donations: 0, startDate: '1/5/2026' })).status).toBe(200);
    try {
      const res = await b.form('/api/register-special-user', postForm(email, { passes: '4' }, { bytes: await smallPng(), name: 'a.png', type: 'image/png' }));
      expect(res.status).toBe(400);
      expect(res.body.fields.passes).toBe('You can get at most 3 passes');
      const ok = await b.form('/api/register-special-user', postForm(email, { passes: '3' }, { bytes: await smallPng(), name: 'a.png', type: 'image/png' }));
      expect(ok.status).toBe(200);
      expect(ok.body.user).toMatchObject({ passes: 3, chatCount: 510 - 60 });
    } finally {
      await admin.request('PUT', '/api/main-data', { available: 100, cpm: 1, donations: 0, startDate: '1/5/2026' });
    }
  });

  it('refuses an image over 2 MB', async () => {
    const { b, email } = await member(1);
    const big = Buffer.concat([await smallPng(), Buffer.alloc(2 * 1024 * 1024)]);
    const res = await b.form('/api/register-special-user', postForm(email, {}, { bytes: big, name: 'big.png', type: 'image/png' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: IMAGE_MESSAGES.tooLarge, fields: { image: IMAGE_MESSAGES.tooLarge } });
  });

  it('refuses more passes than the points allow, and 0 passes on a first post', async () => {
    const { b, email } = await member(0);
    const png = { bytes: await smallPng(), name: 'a.png', type: 'image/png' };
    const tooMany = await b.form('/api/register-special-user', postForm(email, { passes: '1' }, png));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.fields.passes).toBe('You do not have enough points for a pass');
    const none = await b.form('/api/register-special-user', postForm(email, { passes: '0' }, png));
    expect(none.status).toBe(400);
    expect(none.body.fields.passes).toBe('Please choose at least 1 pass');
  });

  it('needs a member session', async () => {
    const res = await h.browser().form('/api/register-special-user', postForm('x@example.com', {}, { bytes: await smallPng(), name: 'a.png', type: 'image/png' }));
    expect(res.status).toBe(401);
  });
});
