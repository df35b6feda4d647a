import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PURCHASE_OPTIONS } from '@pass/events';
import { openPersonalDataEventStore } from '@pass/events/store';
import { smallPng } from '@pass/command-api/test-support';
import { Browser } from '../test-support/client';
import type { SpawnedService } from '../test-support/spawn-process';
import { standaloneSite } from '../test-support/standalone-site';

/**
 * The country of a card against the real server: only one of the form's list is taken, a card
 * recorded with other text (before the server checked it) reads as no country, and an erased
 * member's country leaves the read models and their snapshot.
 */

const { dataDir, start } = standaloneSite('country');
const LONG = 'N'.repeat(4_000);

interface Member {
  browser: Browser;
  id: string;
  email: string;
  /** The image of the member's card, once posted. */
  image?: unknown;
}

async function member(app: SpawnedService, name: string): Promise<Member> {
  const browser = new Browser(app.url);
  const email = `${name}-${randomUUID().slice(0, 8)}@example.com`;
  const joined = await browser.request('POST', '/api/register-user', { email, password: 'pass1' });
  expect(joined.status).toBe(201);
  const order = await browser.request('POST', '/api/payments/orders', { amountUsd: PURCHASE_OPTIONS[0]!.amountUsd });
  expect((await browser.request('POST', `/api/payments/orders/${order.body.orderId as string}/capture`, {})).status).toBe(200);
  return { browser, id: joined.body.id as string, email };
}

/** The post form with one pass, as the web sends it. */
async function post(app: SpawnedService, member: Member, country: string) {
  const form = new FormData();
  const card = { fullname: 'Card Holder', country, email: member.email, link: 'https://example.org/me', message: 'hello there', passes: '1' };
  for (const [name, value] of Object.entries(card)) form.set(name, value);
  form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'me.png');
  const res = await fetch(`${app.url}/api/register-special-user`, { method: 'POST', headers: { cookie: member.browser.cookieHeader() }, body: form });
  const body = (await res.json()) as { error?: string; fields?: Record<string, string>; user?: { image: unknown } };
  if (body.user) member.image = body.user.image;
  return { status: res.status, body };
}

const read = async (app: SpawnedService, path: string) => (await new Browser(app.url).request('GET', path)).body;

describe('standalone: the country of a card', () => {
  let app: SpawnedService;
  let ann: Member;
  let bob: Member;

  it("refuses a country off the form's list with the spec's message, and changes nothing", { timeout: 90_000 }, async () => {
    app = await start();
    ann = await member(app, 'ann');
    const before = await ann.browser.request('GET', `/api/verify-access/${ann.id}`);
    for (const country of ['Narnia', LONG, 'spain', '']) {
      const refused = await post(app, ann, country);
      expect(refused, country.slice(0, 20)).toEqual({ status: 400, body: { error: 'Please enter a country', fields: { country: 'Please enter a country' } } });
    }
    expect((await ann.browser.request('GET', `/api/verify-access/${ann.id}`)).body).toEqual(before.body);
    expect(await read(app, '/api/countries')).toEqual({ distinct: 0, top: [] });

    expect((await post(app, ann, 'Spain')).status).toBe(200);
    await expect.poll(() => read(app, '/api/countries')).toEqual({ distinct: 1, top: [{ country: 'Spain', users: 1 }] });
  });

  it('reads a card recorded with other text as no country; an erased member leaves no country behind', { timeout: 120_000 }, async () => {
    bob = await member(app, 'bob');
    expect((await post(app, bob, 'Peru')).status).toBe(200);
    await expect.poll(() => read(app, '/api/countries')).toEqual({ distinct: 2, top: [{ country: 'Peru', users: 1 }, { country: 'Spain', users: 1 }] });
    await app.stop('SIGTERM');

    // Cards as the server wrote them before it checked the country: schema version 1, any text.
    const store = await openPersonalDataEventStore(`pglite:${join(dataDir, 'events')}`, { keysDir: join(dataDir, 'member-keys') });
    for (const [member, country] of [[ann, LONG], [bob, 'Narnia']] as const) {
      const eventId = randomUUID();
      const data = { userId: member.id, fullname: 'Card Holder', country, email: member.email, link: 'https://example.org/me', image: member.image, message: 'hello there', updatedAt: new Date().toISOString() };
      const metadata = { eventId, correlationId: eventId, causationId: eventId, actor: { type: 'member', id: member.id }, schemaVersion: 1, occurredAt: data.updatedAt };
      await store.append(`user-${member.id}`, [{ id: eventId, type: 'CertificateUpdated', data, metadata }], 'any');
    }
    await store.close();

    app = await start();
    expect(await read(app, '/api/countries')).toEqual({ distinct: 0, top: [] });
    const ranking = await read(app, '/api/ranking?page=1&pageSize=50');
    expect(ranking.items.map((entry: { country: string }) => entry.country)).toEqual(['', '']);
    for (const text of [JSON.stringify(ranking), JSON.stringify(await read(app, '/api/global-post'))]) {
      expect(text).not.toContain('Narnia');
      expect(text).not.toContain(LONG.slice(0, 100));
    }
    ann.browser = await signIn(app, ann.email);
    expect((await ann.browser.request('GET', `/api/verify-access/${ann.id}`)).body.country).toBe('');
    expect((await ann.browser.request('GET', '/api/my-data')).body.card.country).toBe('');

    // Bob picks a country from the list again, then erases his account: the count drops with him.
    bob.browser = await signIn(app, bob.email);
    expect((await post(app, bob, 'Peru')).status).toBe(200);
    await expect.poll(() => read(app, '/api/countries')).toEqual({ distinct: 1, top: [{ country: 'Peru', users: 1 }] });
    expect((await bob.browser.request('DELETE', '/api/my-account', { password: 'pass1' })).status).toBe(204);
    expect(await read(app, '/api/countries')).toEqual({ distinct: 0, top: [] });
    await app.stop('SIGTERM');
    const snapshot = readFileSync(join(dataDir, 'read-models.snapshot'));
    for (const text of ['Narnia', LONG.slice(0, 100), 'Peru', bob.id]) expect(snapshot.includes(text), text.slice(0, 20)).toBe(false);
  });
});

async function signIn(app: SpawnedService, email: string): Promise<Browser> {
  const browser = new Browser(app.url);
  expect((await browser.request('POST', '/api/register-user', { email, password: 'pass1' })).status).toBe(200);
  return browser;
}
