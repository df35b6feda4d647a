import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PURCHASE_OPTIONS } from '@pass/events';
import { smallPng } from '@pass/command-api/test-support';
import { Actor } from '../test-support/hostile/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * The log of a member's whole journey on the real standalone server (join, sign in, a card, a
 * chat line, searches of the registry and the ranking, a reset link opened in a real browser, the
 * new password, the admin's post search, the erasure) holds none of the personal values and
 * tokens used on the way: what the log keeps outlives the erasure, and whoever reads it must not
 * be able to sign in as the member.
 */

const ADMIN = { email: 'log-admin@example.com', password: 'admin-pass-9' };
const MEMBER = {
  email: 'Quillon.Marsh@example.org',
  name: 'Quillon Marshwater',
  country: 'Liechtenstein',
  link: 'https://quillon.example/own-page',
  message: 'quillon card words',
  chat: 'quillon chat words',
};
/** A client address of the member's own (believed from loopback, as behind the proxy). */
const ADDRESS = '10.203.204.205';

/** The body of a raw RFC 5322 message, quoted-printable undone. */
function bodyOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  if (!/Content-Transfer-Encoding: quoted-printable/i.test(raw)) return body;
  return body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A value as a log line could hold it: as typed, lower-cased, URL-encoded, form-encoded, JSON-escaped. */
function spellings(value: string): string[] {
  const forms = [value, value.toLowerCase(), encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)];
  return [...new Set(forms)];
}

describe('standalone: the log of a whole journey holds no personal value and no token', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-log-privacy-'));
  let app: SpawnedService;

  beforeAll(async () => {
    app = await spawnStandalone({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  }, 60_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('join, card, chat, searches, reset link in a browser, new password, admin search, erasure: none of it in the log', { timeout: 120_000 }, async () => {
    const cookies = new Set<string>();
    const keepCookies = (actor: Actor) => {
      for (const value of actor.cookies.values()) cookies.add(value);
    };
    const member = new Actor(app.url, ADDRESS);
    expect((await member.send('POST', '/api/register-user', { json: { email: MEMBER.email, password: 'pw0ld1' } })).status).toBe(201);
    keepCookies(member);
    const again = new Actor(app.url, ADDRESS);
    expect((await again.send('POST', '/api/register-user', { json: { email: MEMBER.email, password: 'pw0ld1' } })).status).toBe(200);
    keepCookies(again);

    // A card with every personal field, and a chat line.
    const order = await member.send('POST', '/api/payments/orders', { json: { amountUsd: PURCHASE_OPTIONS[0]!.amountUsd } });
    expect((await member.send('POST', `/api/payments/orders/${order.body.orderId as string}/capture`, { json: {} })).status).toBe(200);
    const form = new FormData();
    for (const [k, v] of Object.entries({ fullname: MEMBER.name, country: MEMBER.country, email: MEMBER.email, link: MEMBER.link, message: MEMBER.message, passes: '1' })) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'me.png');
    expect((await member.send('POST', '/api/register-special-user', { form })).status).toBe(200);
    expect((await member.send('POST', '/api/chat-messages', { json: { message: MEMBER.chat } })).status).toBe(201);

    // Searches by e-mail and by name, as a visitor types them.
    const searches = [MEMBER.email, MEMBER.name, 'Marshwat'];
    for (const q of searches) {
      for (const path of ['/api/registry', '/api/ranking']) expect((await member.send('GET', `${path}?q=${encodeURIComponent(q)}&page=1`)).status).toBe(200);
    }

    // The reset link, from the outbox, opened in a real browser that sets the new password.
    expect((await new Actor(app.url, ADDRESS).send('POST', '/api/password-reset', { json: { email: MEMBER.email } })).status).toBe(202);
    const outbox = join(dataDir, 'outbox');
    await expect.poll(() => readdirSync(outbox, { withFileTypes: true }).filter((f) => f.name.endsWith('.eml')).length, { timeout: 15_000 }).toBe(1);
    const mail = readFileSync(join(outbox, readdirSync(outbox).find((f) => f.endsWith('.eml'))!), 'utf8');
    const link = /https?:\/\/[^/\s]+(\/content\/reset-password\S+)/.exec(bodyOf(mail));
    expect(link, 'the mail holds the reset link').not.toBeNull();
    const linkPath = link![1]!;
    const token = decodeURIComponent(/token=([^&\s]+)/.exec(linkPath)![1]!);
    const secret = token.split('.')[1]!;
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    let addressBar: string;
    try {
      const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': ADDRESS } });
      await context.addInitScript(`localStorage.setItem('acceptedCookie', 'true');`);
      const page = await context.newPage();
      await page.goto(app.url + linkPath, { waitUntil: 'load' });
      await page.getByLabel('New password', { exact: true }).fill('pwN3w2');
      await page.getByLabel('Repeat the new password').fill('pwN3w2');
      await page.getByRole('button', { name: 'Set my new password' }).click();
      await page.getByText('Your new password is set.').waitFor({ state: 'visible', timeout: 15_000 });
      addressBar = page.url();
    } finally {
      await browser.close();
    }
    const signedIn = new Actor(app.url, ADDRESS);
    expect((await signedIn.send('POST', '/api/register-user', { json: { email: MEMBER.email, password: 'pwN3w2' } })).status).toBe(200);
    keepCookies(signedIn);

    // The admin searches the posts by the member's e-mail and name.
    const admin = new Actor(app.url, '10.203.204.206');
    expect((await admin.send('POST', '/api/admin-login', { json: ADMIN })).status).toBe(200);
    keepCookies(admin);
    for (const q of [MEMBER.email, MEMBER.name]) expect((await admin.send('GET', `/api/admin/posts?q=${encodeURIComponent(q)}&page=1`)).status).toBe(200);

    expect((await signedIn.send('DELETE', '/api/my-account', { json: { password: 'pwN3w2' } })).status).toBe(204);
    // Every access line is written when its response closes; a clean stop writes the rest.
    expect(await app.stop('SIGTERM')).toBe(0);

    const secrets: [string, string][] = [
      ...Object.entries(MEMBER).flatMap(([what, value]) => spellings(value).map((v): [string, string] => [what, v])),
      ...searches.flatMap((q) => spellings(q).map((v): [string, string] => ['search term', v])),
      ...spellings(token).map((v): [string, string] => ['reset token', v]),
      ['reset secret', secret],
      ...[...cookies].map((v): [string, string] => ['session cookie', v]),
      ['client address', ADDRESS],
      ['client address', '10.203.204.206'],
      // The e-mail's unsalted SHA-256: a dictionary of addresses reverses it.
      ['e-mail hash', createHash('sha256').update(MEMBER.email.toLowerCase()).digest('hex')],
    ];
    expect(cookies.size).toBeGreaterThanOrEqual(3);
    // The journey is in the log, its searches by parameter name only.
    expect(app.logs.filter((line) => line.includes('"url":"/api/registry?q=<redacted>&page=<redacted>"'))).toHaveLength(searches.length);
    expect(app.logs.some((line) => line.includes('"url":"/api/admin/posts?q=<redacted>&page=<redacted>"'))).toBe(true);
    expect(app.logs.some((line) => line.includes('"url":"/content/reset-password"'))).toBe(true);
    const found: string[] = [];
    for (const line of app.logs) {
      // The server's own address is in its "listening" line; a client's is in none.
      const own = (JSON.parse(line) as { msg?: string }).msg === 'listening';
      for (const [what, value] of own ? secrets : [...secrets, ['peer address', '127.0.0.1'] as [string, string]]) {
        if (line.includes(value)) found.push(`${what} (${value}) in ${line.slice(0, 300)}`);
      }
      if (/remoteAddress|"ip"/.test(line)) found.push(`a client address field in ${line.slice(0, 300)}`);
    }
    // Read from the address bar once, then gone from it (a screenshot or a shared screen shows no token).
    if (addressBar.includes(secret)) found.push(`reset secret in the address bar: ${addressBar}`);
    expect(found).toEqual([]);
  });
});
