/**
 * The browser suite (`npm test`, vitest project "browser"): a newcomer's journey and the admin's
 * journey in Debian's Chromium against the real standalone process (command-api + projector +
 * query-api + built web on one origin, embedded event store in a temporary DATA_DIR), with
 * screenshots of every main screen at 1280×800 and 390×844 in web/e2e/screenshots/ (git-ignored).
 *
 * Nothing is faked: the free-point countdown runs its 30 s of real time, payments use the
 * server's simulated (test-mode) provider, the admin is bootstrapped from ADMIN_EMAIL/ADMIN_PASSWORD.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { recordSkippedSuite } from '@pass/events/test-support';
import { CHROMIUM_PATH, VIEWPORTS, type ViewportName } from './browser';
import { tinyPng } from './png';
import { ADMIN, ensureWebBuild, PHONES, seriousAxeViolations, startSite, type Site } from './site';

const SUITE = 'browser: newcomer and admin journeys (web/e2e/journeys.test.ts)';
const SHOTS = resolve(import.meta.dirname, 'screenshots');

const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) recordSkippedSuite(SUITE, `no Chromium at ${CHROMIUM_PATH}`);

/** Screens that are wider than the viewport (a sideways scroll on a phone), found while shooting. */
const overflowing: string[] = [];
/** axe-core's serious or critical violations, found while shooting (every screen, every size). */
const inaccessible: string[] = [];

/** The small phone the layout is also held to (phone.test.ts): checked, not shot. */
const SMALL_PHONE = PHONES['phone-360'];

/** Both sizes of the current screen, then back to the page's own viewport. */
async function shoot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  const own = page.viewportSize();
  await page.setViewportSize(SMALL_PHONE);
  await page.waitForTimeout(100);
  for (const v of await seriousAxeViolations(page)) inaccessible.push(`${name}-phone-360: ${v.id} (${v.impact}) ${v.help} at ${v.targets.join(', ')}`);
  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    // Fixed bars would be drawn mid-page on a full-page shot taken scrolled down.
    if (options.fullPage) await page.evaluate(() => window.scrollTo(0, 0));
    // Let layout settle and lazy images in view decode.
    await page.waitForTimeout(250);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (wide > 0) overflowing.push(`${name}-${viewport}: ${wide}px wider than the window`);
    for (const v of await seriousAxeViolations(page)) inaccessible.push(`${name}-${viewport}: ${v.id} (${v.impact}) ${v.help} at ${v.targets.join(', ')}`);
    await page.screenshot({ path: resolve(SHOTS, `${name}-${viewport}.png`), fullPage: options.fullPage ?? false });
  }
  if (own) await page.setViewportSize(own);
}

/** Today as the certificate and the registry print it (UTC, dd/mm/yyyy). */
function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

/** The number a <dt>label</dt><dd>value</dd> pair shows. */
const statValue = (page: Page, label: string) =>
  page.locator('dl.stats > div').filter({ has: page.getByText(label, { exact: true }) }).locator('dd');

describe.skipIf(!hasChromium)('browser journeys on the standalone build', () => {
  let site: Site;
  let baseUrl: string;

  // The ads popup opens 6 s after the cookie is accepted (then every 5 minutes): the member meets
  // it on the free-points page; the other contexts leave the cookie notice alone or are done
  // before it shows. A page's errors (uncaught, or a Content-Security-Policy refusal: zod's JIT
  // probe was one, until the forms turned it off) are collected in `site.errors`.
  async function newPage(options: { acceptedCookie?: boolean } = {}): Promise<Page> {
    return site.newPage(await site.newContext({ viewport: VIEWPORTS.desktop, ...options }));
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    site = await startSite(ensureWebBuild());
    baseUrl = site.url;
  });

  afterAll(async () => {
    await site?.stop();
  });

  // Shared along the newcomer's journey.
  let member: Page;
  const email = `newcomer${Date.now().toString(36)}@example.com`;
  const fullname = 'Ada Newcomer';
  const greeting = 'Hello from the browser suite!';

  test('cookie notice, then join: a wrong-format email first shows the spec message', async () => {
    member = await newPage();
    await member.goto(baseUrl + '/');
    const cookie = member.getByRole('region', { name: 'Cookie notice' });
    await expect.poll(() => cookie.isVisible()).toBe(true);
    await member.getByRole('heading', { name: /Get Your Free Pass Today!/ }).waitFor();
    // The fresh installation opens with the goal's supply.
    await expect.poll(() => statValue(member, 'Available Passes').textContent()).toBe('1,000,000');
    expect(await statValue(member, 'Taken').textContent()).toBe('0');
    await cookie.getByRole('button', { name: 'Read privacy policy' }).click();
    await cookie.getByText('cookie lasts 24 hours').waitFor();
    await shoot(member, 'home-guest');
    await cookie.getByRole('button', { name: 'Accept' }).click();
    await cookie.waitFor({ state: 'detached' });
    expect(await member.evaluate(() => localStorage.getItem('acceptedCookie'))).toBe('true');

    await member.locator('.hero').getByRole('link', { name: 'Join' }).click();
    await member.waitForURL('**/content/join');
    await member.getByLabel('Email').fill('newcomer@example.xyz');
    await member.getByLabel('Password').fill('pass1');
    await member.getByRole('button', { name: 'Join' }).click();
    await member.getByText('Invalid Email').waitFor();
    expect(member.url()).toBe(baseUrl + '/content/join');

    await member.getByLabel('Email').fill(email);
    // Re-validates on change: the message goes as soon as the address is fine.
    await member.getByText('Invalid Email').waitFor({ state: 'detached' });
    await member.getByRole('button', { name: 'Join' }).click();
    await member.waitForURL('**/content/check');
  });

  test('the free-point countdown runs 30 s and earns a point', async () => {
    const page = member;
    await page.getByText('Your points: 10').waitFor();
    const countdown = page.locator('.check').getByLabel('Time left');
    await expect.poll(() => countdown.textContent(), { timeout: 5_000 }).toMatch(/^00:2\d$/);
    // The ads popup opens 6 s after the cookie was accepted, with its three banners, for 10 s.
    const popup = page.getByRole('dialog', { name: 'Ads keep this project alive' });
    await popup.waitFor({ timeout: 15_000 });
    await expect.poll(() => popup.locator('iframe').count()).toBe(3);
    await shoot(page, 'ads-popup');
    await popup.waitFor({ state: 'detached', timeout: 15_000 });
    expect(page.url()).toBe(baseUrl + '/content/check');
    // The countdown went on meanwhile, with the free-points banner under it.
    await expect.poll(() => countdown.textContent()).toMatch(/^00:(0\d|1\d)$/);
    await shoot(page, 'check');

    await page.getByText('A new point has been added').waitFor({ timeout: 35_000 });
    // At 0 the countdown sends the member home.
    await page.waitForURL(baseUrl + '/', { timeout: 5_000 });
    await page.getByRole('link', { name: 'Participants' }).first().click();
    await page.waitForURL('**/content/participants');
    await expect.poll(() => statValue(page, 'Your points').textContent()).toBe('11');
  });

  test('buy points with the test-mode payment', async () => {
    const page = member;
    await page.getByRole('link', { name: 'Buy Points' }).click();
    await page.waitForURL('**/content/points');
    await page.getByRole('button', { name: 'Buy 100 points for $1' }).waitFor();
    await shoot(page, 'points');
    await page.getByRole('button', { name: 'Buy 100 points for $1' }).click();
    const checkout = page.getByRole('dialog', { name: /\$1 — 100 points/ });
    await checkout.getByText('Test mode: no real payment is made.').waitFor();
    await shoot(page, 'points-checkout');
    await checkout.getByRole('button', { name: 'Pay $1 (test mode, no real payment)' }).click();
    await page.getByText('Points successfully acquired!').waitFor();
    await page.waitForURL('**/content/registered');
    await expect.poll(() => statValue(page, 'Your points').textContent()).toBe('111');
  });

  test('post the certificate with an image and choose passes; the certificate shows name, date and passes', async () => {
    const page = member;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Get my pass' }).click();
    await page.waitForURL('**/content/post');
    await page.getByRole('heading', { name: `Get your ${PRODUCT_NAME}` }).waitFor();
    // The registered email is filled in.
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(email);
    await page.getByRole('button', { name: `Get ${PRODUCT_NAME}!` }).click();
    await page.getByText('Please enter your full name').waitFor();
    await shoot(page, 'post');
    await page.getByLabel('Full name').fill(fullname);
    await page.getByLabel('Country').selectOption('Spain');
    await page.getByLabel('Personal link').fill('https://example.com/ada');
    await page.getByLabel('Image').setInputFiles({ name: 'ada.png', mimeType: 'image/png', buffer: tinyPng() });
    await page.getByRole('textbox', { name: 'Message' }).fill(greeting);
    await page.getByRole('button', { name: `Get ${PRODUCT_NAME}!` }).click();

    await page.waitForURL('**/content/amount');
    await expect.poll(() => statValue(page, 'Available passes').textContent()).toBe('1,000,000');
    expect(await statValue(page, 'Your points').textContent()).toBe('111');
    await page.getByText('Between 1 and 5').waitFor();
    const passes = page.getByRole('spinbutton', { name: 'Passes' });
    await passes.fill('6');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('You can get at most 5 passes').waitFor();
    await shoot(page, 'amount');
    await passes.fill('3');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(baseUrl + '/', { timeout: 20_000 });
    // The new-member popup shows the greeting to everyone.
    const popup = page.locator('.new-member');
    await popup.getByText(`${fullname} says:`).waitFor();
    await popup.getByText(greeting).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Certificate' }).click();
    await page.waitForURL('**/content/certificate');
    const certificate = page.getByRole('article', { name: `${PRODUCT_NAME} certificate` });
    await certificate.getByText(fullname, { exact: true }).waitFor();
    expect(await certificate.textContent()).toContain(`holds 3 passes since ${today()}`);
    await page.getByRole('button', { name: 'Download Certificate' }).waitFor();
    await shoot(page, 'certificate');
  });

  test('a chat message appears in a second browser context', async () => {
    const page = member;
    const watcher = await newPage();
    await watcher.goto(baseUrl + '/');
    await watcher.getByRole('button', { name: /^Open chat, 0 messages$/ }).click();
    await watcher.getByText('No messages yet. Say hello!').waitFor();

    await page.goto(baseUrl + '/');
    await page.getByRole('button', { name: /^Open chat/ }).click();
    const chat = page.getByRole('complementary', { name: 'Global chat' });
    const text = `Hi everyone, ${fullname} here`;
    await chat.getByRole('textbox', { name: 'Message' }).fill(text);
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByText(text).waitFor();
    // The draft is cleared once sent.
    await expect.poll(() => chat.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
    await shoot(page, 'chat');

    const seen = watcher.getByRole('complementary', { name: 'Global chat' });
    await seen.getByText(text).waitFor();
    await seen.getByText(`${fullname}:`).waitFor();
    await watcher.getByRole('button', { name: 'Close chat, +1 messages' }).waitFor();
    await watcher.context().close();
  });

  test('the member appears in the registry and in the sponsors ranking, then logs out', async () => {
    const page = member;
    await page.goto(baseUrl + '/');
    const sponsors = page.locator('#sponsors');
    const card = sponsors.getByRole('listitem').filter({ hasText: fullname });
    await card.waitFor();
    expect(await card.locator('.rank').textContent()).toBe('#1');
    expect(await card.locator('.passes').textContent()).toBe('3 passes');
    await card.getByText('Spain').waitFor();
    expect(await card.getAttribute('title')).toBe(greeting);
    await expect.poll(() => page.locator('.members-count').first().textContent()).toBe('<1>');
    await expect.poll(() => statValue(page, 'Taken').textContent()).toBe('3');
    await expect.poll(() => statValue(page, 'Available Passes').textContent()).toBe('999,997');
    // Funds raised: $1 bought (no ad views or donations yet).
    expect(await statValue(page, 'Funds Raised').textContent()).toBe('$1.00');
    await shoot(page, 'home', { fullPage: true });

    await page.getByRole('link', { name: /connected users/ }).click();
    await page.waitForURL('**/content/registered');
    const row = page.getByRole('row').filter({ hasText: fullname });
    await row.waitFor();
    expect(await row.getAttribute('aria-current')).toBe('true');
    // 10 on joining + 1 free + 100 bought − 3 × 20 for the passes − 1 chat message.
    expect((await row.getByRole('cell').allTextContents()).map((t) => t.trim())).toEqual([today(), fullname, '3', '50']);
    await shoot(page, 'participants');

    await page.getByRole('button', { name: 'Logout' }).click();
    await page.getByRole('link', { name: 'Join the project' }).waitFor();
    expect(await page.getByRole('button', { name: 'Logout' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Get my pass' }).click();
    await page.waitForURL('**/content/join');
    await page.reload();
    await page.getByRole('heading', { name: `Join ${PRODUCT_NAME}` }).waitFor();
    // The join screen as the newcomer first met it: a wrong-format email.
    await page.getByLabel('Email').fill('newcomer@example.xyz');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByText('Invalid Email').waitFor();
    await shoot(page, 'join');
  });

  test('admin: Spanish login messages, edit main data, open a certificate and point history, delete a post and the chat', async () => {
    const page = await newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(baseUrl + '/content/admin');
    await page.getByRole('heading', { name: 'Administración' }).waitFor();
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.getByText('Ingrese su email').waitFor();
    await page.getByText('Ingrese su contraseña').waitFor();
    await page.getByLabel('Correo electrónico').fill('a@b.co');
    await page.getByText('Ingrese un email valido').waitFor();
    await page.getByLabel('Contraseña').fill('short');
    await page.getByText('Ingrese una contraseña valida').waitFor();
    await shoot(page, 'admin-login');
    await page.getByLabel('Correo electrónico').fill(ADMIN.email);
    await page.getByLabel('Contraseña').fill('wrong-password');
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.getByRole('alert').getByText('Email o contraseña incorrectos').waitFor();
    await page.getByLabel('Contraseña').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL('**/content/admin/dashboard');
    await page.getByRole('heading', { name: 'Panel de administración' }).waitFor();
    await page.getByText(ADMIN.email).waitFor();
    // An admin is never shown the ads popup; accepting the cookie now is safe.
    await page.getByRole('region', { name: 'Cookie notice' }).getByRole('button', { name: 'Accept' }).click();

    // Edit main data: donations count in the funds raised everyone sees.
    const mainData = page.locator('form').filter({ has: page.getByRole('heading', { name: 'Editar datos principales' }) });
    await expect.poll(() => mainData.getByLabel('Pases disponibles').inputValue()).toBe('999997');
    await mainData.getByLabel('Donaciones (USD)').fill('1234.5');
    await mainData.getByRole('button', { name: 'Guardar' }).click();
    const post = page.locator('.admin-posts > li').filter({ hasText: fullname });
    await post.waitFor();
    await post.getByText(greeting).waitFor();
    await shoot(page, 'admin-dashboard', { fullPage: true });

    const guest = await newPage();
    await guest.goto(baseUrl + '/');
    await expect.poll(() => statValue(guest, 'Funds Raised').textContent()).toBe('$1,235.50');

    // A member's certificate.
    await post.getByRole('button', { name: `Certificado de ${fullname}` }).click();
    await page.waitForURL('**/content/admin-certificate');
    const certificate = page.getByRole('article', { name: `${PRODUCT_NAME} certificate` });
    await certificate.getByText(fullname, { exact: true }).waitFor();
    expect(await certificate.textContent()).toContain(`holds 3 passes since ${today()}`);
    await shoot(page, 'admin-certificate');
    await page.goBack();
    await page.waitForURL('**/content/admin/dashboard');

    // The member's point history: joined 10, free point +1, bought +100, 3 passes −60, a chat message −1.
    await post.getByRole('button', { name: `Historial de ${fullname}` }).click();
    const history = page.getByRole('dialog', { name: 'Historial de puntos' });
    await history.getByRole('table').waitFor();
    const deltas = (await history.locator('tbody tr td:nth-child(3)').allTextContents()).map((t) => t.trim());
    const balances = (await history.locator('tbody tr td:nth-child(4)').allTextContents()).map((t) => t.trim());
    expect(deltas).toEqual(expect.arrayContaining(['+10', '+1', '+100', '-60', '-1']));
    expect(balances.at(-1)).toBe('50');
    await shoot(page, 'admin-history');
    await history.getByRole('button', { name: 'Cerrar historial' }).click();

    // Delete the chat messages: everyone's chat empties.
    await guest.getByRole('button', { name: 'Open chat, +1 messages' }).click();
    await guest.getByRole('complementary', { name: 'Global chat' }).getByText(`${fullname}:`).waitFor();
    await page.getByRole('button', { name: 'Eliminar mensajes del chat' }).click();
    await guest.getByRole('complementary', { name: 'Global chat' }).getByText('No messages yet. Say hello!').waitFor();

    // Delete the post: the public card (name, photo, message) goes; the member keeps the passes.
    await page.getByRole('button', { name: `Eliminar la publicación de ${fullname}` }).click();
    await page.getByText('Publicación eliminada').waitFor();
    const posts = page.locator('.admin-posts');
    await posts.getByText(greeting).waitFor({ state: 'detached' });
    // Without its card the member is no post any more (the passes stay: the certificate below).
    expect(await page.locator('.admin-posts > li').filter({ hasText: email }).count()).toBe(0);
    expect(await posts.getByText(fullname).count()).toBe(0);
    await guest.reload();
    const sponsors = guest.locator('#sponsors');
    const anonymous = sponsors.getByRole('listitem').filter({ hasText: '3 passes' });
    await anonymous.getByText('Anonymous', { exact: true }).waitFor();
    expect(await sponsors.getByText(fullname).count()).toBe(0);
    await shoot(guest, 'home-after-delete', { fullPage: true });

    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/content/admin');
    await page.getByRole('button', { name: 'Iniciar sesión' }).waitFor();
  });

  test('other screens: about, the side menu and the router error screen', async () => {
    const page = await newPage({ acceptedCookie: true });
    await page.goto(baseUrl + '/content/about');
    await page.getByRole('link', { name: /Donate/ }).first().waitFor();
    await shoot(page, 'about', { fullPage: true });
    // On a phone the navigation lives in the side menu; a link click closes it.
    await page.setViewportSize(VIEWPORTS.mobile);
    await page.getByRole('button', { name: 'Open menu' }).click();
    const menu = page.getByRole('navigation', { name: 'Side menu' });
    await menu.getByRole('link', { name: /Members/ }).waitFor();
    await shoot(page, 'side-menu');
    await menu.getByRole('link', { name: 'Participants' }).click();
    await page.waitForURL('**/content/participants');
    await menu.waitFor({ state: 'hidden' });
    await page.goto(baseUrl + '/no-such-page');
    await page.getByText('Unexpected Application Error!').waitFor();
    await page.getByText('404').first().waitFor();
    await shoot(page, 'not-found');
    expect(site.errors).toEqual([]);
    // Every screen fits its window at both sizes (no sideways scrolling on a phone).
    expect(overflowing).toEqual([]);
    // And reads for everyone: no serious or critical axe-core finding on any of them.
    expect(inaccessible).toEqual([]);
  });
});
