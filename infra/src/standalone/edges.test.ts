import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { APP_PAGE_PATHS } from '@pass/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

// The built web app (`cd web && npx vite build`): its index.html and what Vite copies from web/public.
const webDist = resolve(import.meta.dirname, '../../../web/dist');
const dataDir = mkdtempSync(join(tmpdir(), 'standalone-edges-'));
let app: SpawnedService;

beforeAll(async () => {
  if (!existsSync(join(webDist, 'index.html'))) throw new Error(`No built web app in ${webDist}: run \`cd web && npx vite build\``);
  app = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: webDist, EVENT_STORE_URL: 'pglite:memory' });
}, 60_000);
afterAll(async () => {
  await app?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const page = (path: string) => fetch(`${app.url}${path}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });

describe('the edges of the standalone server', () => {
  it('answers per-member reads with Cache-Control: no-store, public reads as before', async () => {
    const member = new Browser(app.url);
    const joined = await member.request('POST', '/api/register-user', { email: 'edges@example.com', password: 'pass1234' });
    expect(joined.status).toBe(201);
    const cookie = member.cookieHeader();
    const get = (path: string) => fetch(`${app.url}${path}`, { headers: { accept: 'application/json', cookie } });

    const me = await get('/api/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('cache-control')).toBe('no-store');
    const access = await get(`/api/verify-access/${joined.body.id}`);
    expect(access.status).toBe(200);
    expect(access.headers.get('cache-control')).toBe('no-store');
    const registry = await get('/api/registry?search=edges@example.com');
    expect(registry.headers.get('cache-control')).toBe('no-store');
    const chat = await fetch(`${app.url}/api/chat-messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ message: 'no-store please' }),
    });
    expect(chat.status).toBe(201);
    expect(chat.headers.get('cache-control')).toBe('no-store');
    const guestMe = await fetch(`${app.url}/api/me`);
    expect(guestMe.status).toBe(401);
    expect(guestMe.headers.get('cache-control')).toBe('no-store');
    for (const path of ['/api/admin/posts', '/api/admin/projections']) {
      const admin = await get(path);
      expect(admin.status, path).toBe(403);
      expect(admin.headers.get('cache-control'), path).toBe('no-store');
    }

    // Public reads keep their validators and no no-store, with or without a session.
    for (const path of ['/api/main-data', '/api/countries', '/api/ranking']) {
      const read = await get(path);
      expect(read.status, path).toBe(200);
      expect(read.headers.get('etag'), path).toBeTruthy();
      expect(read.headers.get('cache-control'), path).toBeNull();
    }
  });

  it('answers an unknown /api path 404 with a JSON error', async () => {
    for (const path of ['/api/no-such-route', '/api/me/extra']) {
      const res = await fetch(`${app.url}${path}`, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await res.json(), path).toEqual({ error: expect.any(String) });
    }
  });

  it('answers every page of the web app 200 with the app, and any other path 404 with the same app (its router shows "404 Not Found")', async () => {
    const index = await (await page('/')).text();
    expect(index).toContain('<div id="root" data-page="/">');
    const scripts = (html: string) => html.match(/<script[^>]*src="[^"]+"[^>]*>/g) ?? [];
    // The public shells rendered at build time come as their own HTML: the same app, their own markup.
    const ownHtml: Record<string, string> = { '/content/participants': '/content/participants', '/content/about': '/content/about', '/content/about/': '/content/about' };
    for (const path of [...APP_PAGE_PATHS, '/content/about/', '/content/check?from=home', '/content/reset-password?token=u.secret']) {
      const res = await page(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await res.text();
      if (ownHtml[path]) {
        expect(html, path).toContain(`<div id="root" data-page="${ownHtml[path]}">`);
        expect(scripts(html), path).toEqual(scripts(index));
      } else {
        expect(html, path).toBe(index);
      }
    }
    for (const path of ['/content/no-such-page', '/nope', '/admin', '/content/admin/nope', '/index.htm']) {
      const res = await page(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await res.text(), path).toBe(index);
    }
  });

  it('serves robots.txt and a favicon as files, not as the app', async () => {
    const robots = await page('/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    const rules = await robots.text();
    expect(rules).toMatch(/^Disallow: \/api\/$/m);
    expect(rules).toMatch(/^Disallow: \/content\/admin/m);
    expect(rules).toMatch(/^Allow: \/$/m);

    const icon = await page('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\//);
    // The page's own icon link: an SVG beside it.
    const link = /<link rel="icon" href="([^"]+\.svg)"/.exec(await (await page('/')).text());
    expect(link).not.toBeNull();
    const svg = await page(link![1]!);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });
});
