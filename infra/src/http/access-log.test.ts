import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppShell } from './app-shell';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  [key: string]: unknown;
}

describe('access log and request ids of the app shell', () => {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const routes = Router();
    routes.post('/api/echo', (req, res) => {
      req.log?.info({ seen: true }, 'handler line');
      res.status(201).json({ id: req.id });
    });
    routes.get('/api/search', (_req, res) => {
      res.json([]);
    });
    routes.get('/readyz', (_req, res) => {
      res.status(503).json({ status: 'starting' });
    });
    routes.get('/api/broken', () => {
      throw new Error('boom');
    });
    server = createServer(createAppShell({ logger: pino({ level: 'debug' }, sink), routers: [routes], serveWebApp: false }));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });

  const until = async (accept: () => boolean) => {
    for (let i = 0; i < 100 && !accept(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('keeps a valid x-request-id, answers it, and logs one line per request with it; handler lines carry it too', async () => {
    const res = await fetch(`${base}/api/echo`, { method: 'POST', headers: { 'x-request-id': 'client-id-1', cookie: 'pass_session=secret' } });
    expect(res.headers.get('x-request-id')).toBe('client-id-1');
    expect(await res.json()).toEqual({ id: 'client-id-1' });
    await until(() => lines.some((l) => l.msg === 'request completed' && l.reqId === 'client-id-1'));
    const mine = lines.filter((l) => l.reqId === 'client-id-1');
    expect(mine.map((l) => l.msg)).toEqual(['handler line', 'request completed']);
    expect(mine[1]).toMatchObject({ level: 30, req: { method: 'POST', url: '/api/echo' }, res: { statusCode: 201 } });
    expect(typeof mine[1]!.responseTime).toBe('number');
    // No headers are logged, so no cookie can leak into the logs.
    expect(JSON.stringify(mine)).not.toContain('secret');
  });

  it('makes a new id when the caller sends none or an unsafe one; 4xx at warn, 5xx at error', async () => {
    const res = await fetch(`${base}/api/nowhere`, { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const broken = await fetch(`${base}/api/broken`);
    expect(broken.status).toBe(500);
    const brokenId = broken.headers.get('x-request-id');
    await until(() => lines.some((l) => l.reqId === brokenId && l.msg === 'request completed'));
    expect(lines.find((l) => l.reqId === id && l.msg === 'request completed')).toMatchObject({ level: 40, res: { statusCode: 404 } });
    expect(lines.filter((l) => l.reqId === brokenId).map((l) => [l.level, l.msg])).toEqual([
      [50, 'request failed'],
      [50, 'request completed'],
    ]);
  });

  it('logs probes at debug only, a 503 of /readyz during start-up included', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    await until(() => lines.some((l) => l.req?.url === '/readyz'));
    expect(lines.find((l) => l.req?.url === '/readyz')).toMatchObject({ level: 20, res: { statusCode: 503 } });
  });

  it('keeps the query parameter names but none of their values, and no client address', async () => {
    const res = await fetch(`${base}/api/search?q=ann%40example.com&page=2&flag&q=Ann+Smith&ann%40example.com`, { headers: { 'x-request-id': 'query-1', 'x-forwarded-for': '10.9.8.7' } });
    expect(res.status).toBe(200);
    await until(() => lines.some((l) => l.reqId === 'query-1' && l.msg === 'request completed'));
    const line = lines.find((l) => l.reqId === 'query-1' && l.msg === 'request completed')!;
    expect(line.req).toEqual({ method: 'GET', url: '/api/search?q=<redacted>&page=<redacted>&flag&q=<redacted>&<redacted>' });
    const text = JSON.stringify(line);
    for (const value of ['ann', 'Ann', 'Smith', '10.9.8.7', '127.0.0.1', 'remoteAddress']) expect(text).not.toContain(value);
  });
});
