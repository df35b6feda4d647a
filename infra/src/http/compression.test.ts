import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppShell } from './app-shell';

// fetch() decompresses transparently; node:http shows what actually travels.
function get(url: string): Promise<{ status: number; encoding: string | undefined; bytes: number }> {
  return new Promise((done, fail) => {
    request(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => done({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], bytes }));
    })
      .on('error', fail)
      .end();
  });
}

describe('the app shell sends the web app compressed', () => {
  const dist = mkdtempSync(join(tmpdir(), 'dist-'));
  let server: Server;
  let base: string;
  const script = `export const routes = ${JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ path: `/content/page-${i}` })))};`;

  beforeAll(async () => {
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(dist, 'assets', 'index.js'), script);
    server = createServer(createAppShell({ logger: pino({ level: 'silent' }), routers: [], webDistDir: dist }));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
    rmSync(dist, { recursive: true, force: true });
  });

  it('gzips scripts for browsers that accept it, at a fraction of their size', async () => {
    const res = await get(`${base}/assets/index.js`);
    expect(res.status).toBe(200);
    expect(res.encoding).toBe('gzip');
    expect(res.bytes).toBeLessThan(script.length / 3);
  });
});
