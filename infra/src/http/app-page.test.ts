import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '../config/settings';
import { createAppShell } from './app-shell';
import { shellSecurity } from './security-headers';

const INDEX = '<!doctype html>\n<html>\n  <head>\n    <title>t</title>\n  </head>\n  <body><div id="root"></div></body>\n</html>\n';

/** The app's HTML as a deployment with these settings serves it. */
describe('the page carries the ad network chosen where the image runs (AD_NETWORK_KEY), not where it was built', () => {
  let dist: string;
  const servers: Server[] = [];
  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'pass-page-'));
    await writeFile(join(dist, 'index.html'), INDEX);
  });
  afterAll(async () => {
    for (const s of servers) s.close();
    await rm(dist, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string>) {
    const app = createAppShell({ logger: pino({ level: 'silent' }), routers: [], webDistDir: dist, ...shellSecurity(parseSettings(env)) });
    const server = createServer(app);
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return (path: string) => fetch(url + path, { headers: { accept: 'text/html' } });
  }

  it('names the key and host in a meta tag of every page, the 404 page included', async () => {
    const get = await serve({ AD_NETWORK_KEY: 'abc123', AD_NETWORK_HOST: 'ads.example.net' });
    for (const [path, status] of [['/', 200], ['/content/join', 200], ['/no-such-page', 404]] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html, path).toContain('<meta name="pass-ad-network" content="abc123" data-host="ads.example.net" />');
      expect(html.indexOf('pass-ad-network'), path).toBeLessThan(html.indexOf('</head>'));
    }
  });

  it('serves the page as built without a key (house banners), and escapes a key that is not plain', async () => {
    expect(await (await (await serve({}))('/')).text()).toBe(INDEX);
    const odd = await (await (await serve({ AD_NETWORK_KEY: 'a"b<c&d' }))('/')).text();
    expect(odd).toContain('content="a&quot;b&lt;c&amp;d" data-host="www.highperformanceformat.com"');
  });
});

describe('a public shell rendered at build time is sent for its own path', () => {
  let dist: string;
  let server: Server;
  let get: (path: string) => Promise<Response>;
  const ABOUT = INDEX.replace('<div id="root"></div>', '<div id="root" data-page="/content/about"><h1>About</h1></div>');
  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'pass-pages-'));
    await writeFile(join(dist, 'index.html'), INDEX);
    await mkdir(join(dist, 'pages/content'), { recursive: true });
    await writeFile(join(dist, 'pages/content/about.html'), ABOUT);
    // Not a page of the app: never sent, whatever the path says.
    await writeFile(join(dist, 'pages/secret.html'), 'not a page');
    const app = createAppShell({ logger: pino({ level: 'silent' }), routers: [], webDistDir: dist, ...shellSecurity(parseSettings({ AD_NETWORK_KEY: 'k1' })) });
    server = createServer(app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    get = (path) => fetch(url + path, { headers: { accept: 'text/html' } });
  });
  afterAll(async () => {
    server.close();
    await rm(dist, { recursive: true, force: true });
  });

  it('answers /content/about (with or without its trailing slash) with its own markup and the run-time settings', async () => {
    for (const path of ['/content/about', '/content/about/']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html, path).toContain('<div id="root" data-page="/content/about"><h1>About</h1></div>');
      expect(html, path).toContain('<meta name="pass-ad-network" content="k1"');
    }
  });

  it('answers a page without a build of its own, and an unknown path, with index.html', async () => {
    expect(await (await get('/content/join')).text()).toContain('<div id="root"></div>');
    const missing = await get('/secret');
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('not a page');
    expect(await (await get('/content/../pages/secret')).text()).not.toContain('not a page');
  });
});
