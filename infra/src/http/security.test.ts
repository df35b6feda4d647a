import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '../config/settings';
import { createAppShell, type AppShellOptions } from './app-shell';
import { crossSiteRefusal } from './csrf';
import { adOptionsScriptHash, contentSecurityPolicy, securityOptionsFrom, shellSecurity, socketSecurity } from './security-headers';

const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

describe('Content-Security-Policy from the settings', () => {
  it('allows only this origin by default, with no plugins, no foreign base, no framing by others', () => {
    const csp = directives(contentSecurityPolicy(securityOptionsFrom(parseSettings({}))));
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'self'"]);
    expect(csp.get('form-action')).toEqual(["'self'"]);
    expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
  });

  it("adds PayPal's hosts for scripts, frames and calls when PAYMENTS_PROVIDER=paypal", () => {
    const settings = parseSettings({ PAYMENTS_PROVIDER: 'paypal', PAYPAL_CLIENT_ID: 'id', PAYPAL_CLIENT_SECRET: 'secret' });
    const csp = directives(contentSecurityPolicy(securityOptionsFrom(settings)));
    for (const name of ['script-src', 'frame-src', 'connect-src', 'img-src']) {
      expect(csp.get(name), name).toEqual(expect.arrayContaining(['https://*.paypal.com', 'https://*.paypalobjects.com']));
    }
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
  });

  it("adds the ad network's hosts and the hash of the ad frame's one inline script when AD_NETWORK_KEY is set", () => {
    const csp = directives(contentSecurityPolicy(securityOptionsFrom(parseSettings({ AD_NETWORK_KEY: 'abc123' }))));
    expect(csp.get('script-src')).toEqual(["'self'", 'https://www.highperformanceformat.com', 'https://*.highperformanceformat.com', adOptionsScriptHash('abc123')]);
    expect(csp.get('frame-src')).toContain('https://*.highperformanceformat.com');
    expect(csp.get('script-src')).not.toContain('https://*.paypal.com');
    // The exact text web/src/components/AdBanner.tsx writes into the frame.
    const inline = `atOptions=${JSON.stringify({ key: 'abc123', format: 'iframe', height: 250, width: 300, params: {} })};`;
    expect(adOptionsScriptHash('abc123')).toBe(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`);
    const other = directives(contentSecurityPolicy(securityOptionsFrom(parseSettings({ AD_NETWORK_KEY: 'k', AD_NETWORK_HOST: 'ads.example.net' }))));
    expect(other.get('script-src')).toContain('https://ads.example.net');
  });

  it('hands the shell and the socket server what they need from the settings', () => {
    const settings = parseSettings({ ALLOWED_ORIGINS: 'https://admin.example.com, https://pass.example.com/', COOKIE_SECURE: 'true', TRUST_PROXY: 'loopback, uniquelocal' });
    expect(shellSecurity(settings)).toEqual({
      security: { paymentsProvider: 'simulated', adNetwork: undefined, hsts: true },
      allowedOrigins: ['https://admin.example.com', 'https://pass.example.com'],
    });
    const socket = socketSecurity(settings);
    expect(Object.keys(socket).sort()).toEqual(['checkOrigin', 'trustProxy']);
    expect(socket.trustProxy).toBe('loopback, uniquelocal');
    // The handshake's check is the shell's, with the same allow-list.
    const host = 'pass.internal:3000';
    expect(socket.checkOrigin({ host, origin: 'https://admin.example.com' })).toEqual({ ok: true });
    expect(socket.checkOrigin({ host, origin: 'https://pass.example.com' })).toEqual({ ok: true });
    expect(socket.checkOrigin({ host, origin: 'http://pass.internal:3000' })).toEqual({ ok: true });
    expect(socket.checkOrigin({ host })).toEqual({ ok: true });
    expect(socket.checkOrigin({ host, origin: 'https://evil.example' })).toEqual({ ok: false, reason: 'cross-site origin https://evil.example' });
    expect(socketSecurity(parseSettings({})).checkOrigin({ host, origin: 'https://admin.example.com' }).ok).toBe(false);
    expect(() => parseSettings({ ALLOWED_ORIGINS: 'evil' })).toThrow(/ALLOWED_ORIGINS/);
  });

  it('refuses an ad network host that is not a host name', () => {
    expect(() => parseSettings({ AD_NETWORK_HOST: "evil.com 'unsafe-inline'" })).toThrow(/AD_NETWORK_HOST/);
  });
});

describe('the app shell', () => {
  let server: Server;
  let url: string;
  let dist: string;
  const writes: string[] = [];

  async function start(options: Partial<AppShellOptions>) {
    const api = Router();
    api.get('/api/thing', (_req, res) => void res.json({ ok: true }));
    api.post('/api/thing', (req, res) => {
      writes.push(String((req.body as { v?: unknown }).v));
      res.status(201).json({ ok: true });
    });
    const app = createAppShell({ logger: pino({ level: 'silent' }), routers: [api], webDistDir: dist, ...options });
    const s = createServer(app);
    await new Promise<void>((done) => s.listen(0, '127.0.0.1', () => done()));
    return { s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
  }

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'pass-shell-'));
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>t</title>');
    ({ s: server, url } = await start({ allowedOrigins: ['https://admin.example.com'] }));
  });
  afterAll(async () => {
    server?.close();
    await rm(dist, { recursive: true, force: true });
  });

  it("sends the security headers on HTML, API, static and error answers (API answers with a policy that allows nothing); HSTS only with Secure cookies", async () => {
    const answers: Array<[string, string]> = [['/', 'text/html'], ['/content/join', 'text/html'], ['/api/thing', 'application/json'], ['/api/nope', 'application/json'], ['/index.html', '*/*'], ['/api', 'text/html']];
    for (const [path, accept] of answers) {
      const res = await fetch(url + path, { headers: { accept } });
      if (path === '/api' || path.startsWith('/api/')) expect(res.headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'");
      else expect(res.headers.get('content-security-policy'), path).toMatch(/default-src 'self'.*object-src 'none'; base-uri 'self'.*frame-ancestors 'self'/);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), path).toBe('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
    }
    const secure = await start({ security: securityOptionsFrom(parseSettings({ COOKIE_SECURE: 'true' })) });
    try {
      expect((await fetch(`${secure.url}/api/thing`)).headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      secure.s.close();
    }
  });

  describe('CSRF: writes from other sites', () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/api/thing`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: 'pass_session=x', ...headers }, body: JSON.stringify({ v: headers.origin ?? headers.referer ?? 'none' }) });

    it.each([
      ['another site', { origin: 'https://evil.example' }],
      ['another port', { origin: 'http://127.0.0.1:1' }],
      ['a look-alike host', { origin: 'http://127.0.0.1.evil.example' }],
      ['an opaque origin', { origin: 'null' }],
      ['another site as Referer only', { referer: 'https://evil.example/page' }],
      ['an unreadable Origin', { origin: 'javascript:alert(1)' }],
    ])('refuses %s with 403 { error } before the route runs', async (_name, headers) => {
      const before = writes.length;
      const res = await post(headers);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'This request did not come from this site. Please reload the page and try again.' });
      expect(writes.length).toBe(before);
    });

    it("logs a refusal with the other page's origin only: its path and query may be a search or a token", () => {
      const logged: unknown[] = [];
      const req = { method: 'POST', headers: { host: 'pass.example', referer: 'https://evil.example/find?q=ann%40example.com' }, log: { warn: (line: unknown) => logged.push(line) } };
      expect(crossSiteRefusal()(req as never)).toBe(true);
      expect(logged).toEqual([{ origin: undefined, referer: 'https://evil.example', reason: 'cross-site origin https://evil.example' }]);
    });

    it('accepts this site (Origin or Referer), the proxy’s forwarded host, configured origins and clients that name no page', async () => {
      const host = new URL(url).host;
      for (const headers of [
        { origin: url },
        { referer: `${url}/content/join` },
        { origin: 'https://pass.example.com', 'x-forwarded-host': 'pass.example.com' },
        { origin: 'https://admin.example.com' },
        {},
      ] as Array<Record<string, string>>) {
        expect((await post(headers)).status, JSON.stringify(headers)).toBe(201);
      }
      expect(host).toMatch(/^127\.0\.0\.1:\d+$/);
    });

    it('leaves reads alone', async () => {
      expect((await fetch(`${url}/api/thing`, { headers: { origin: 'https://evil.example' } })).status).toBe(200);
    });
  });
});
