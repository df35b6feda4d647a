import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import type { DomainEvent, EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { createMemoryReadModels, type Keyspace } from '@pass/projector';
import { projectInto } from '@pass/projector';
import { at } from '@pass/projector/test-support';
import { generateEvents } from '@pass/projector/test-support';
import { createQueryReads } from '@pass/query-api';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppShell, createFastLaneShell, type AppShellOptions } from './app-shell';
import { withFastLane } from './fast-lane';

/** Headers that differ between any two responses (transport, time): everything else must match. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive']);

interface Seen {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as the client reads it (gunzipped when it came compressed). */
  body: string;
}

describe('the query-api fast lane answers public reads exactly as the Express lane', () => {
  let store: EventStore;
  let api: CommandApi;
  let keyspace: Keyspace;
  let uploadsDir: string;
  const registry = new Registry();
  const servers: Record<'fast' | 'express', Server> = {} as never;
  const ports: Record<'fast' | 'express', number> = {} as never;
  let position = 0;
  const project = (events: Iterable<DomainEvent>) => projectInto(keyspace, [...events].map((event) => ({ position: at(++position), event })));

  beforeAll(async () => {
    store = await openPgliteEventStore();
    uploadsDir = await mkdtemp(join(tmpdir(), 'fast-lane-reads-'));
    const logger = pino({ level: 'silent' });
    api = await createCommandApi({ eventStore: store, logger, config: { uploadsDir, cookieSecure: false, sessionSecret: 's'.repeat(40) } });
    const readModels = createMemoryReadModels();
    keyspace = await readModels.active();
    await project(generateEvents({ users: 120, seed: 7, allMembers: true, activity: 1 }));
    const reads = createQueryReads({ readModels, sessions: api.sessions, gateway: api.gateway, eventStore: store, logger, metrics: registry });
    const shell: AppShellOptions = { logger, serveWebApp: false, routers: [reads.router, api.router] };
    const laneShell = createFastLaneShell(shell);
    const app = createAppShell(shell, laneShell);
    // One app and lane shell behind two listeners: the fast lane (both kinds of routes, as the
    // standalone serves them) and Express alone.
    servers.fast = createServer(withFastLane(app, laneShell, api.fastLane, reads.fastLane));
    servers.express = createServer(app);
    for (const lane of ['fast', 'express'] as const) {
      await new Promise<void>((ready) => servers[lane].listen(0, '127.0.0.1', ready));
      ports[lane] = (servers[lane].address() as AddressInfo).port;
    }
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
    await api.close();
    await store.close();
    await rm(uploadsDir, { recursive: true, force: true });
  });

  /** A request with exactly these headers (node:http adds no Accept-Encoding of its own). */
  function send(lane: 'fast' | 'express', path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Seen> {
    return new Promise((done, fail) => {
      const req = request({ host: '127.0.0.1', port: ports[lane], path, method, headers: { 'x-request-id': 'read-1', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const body = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString();
          const kept = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !TRANSPORT.has(name)));
          done({ status: res.statusCode ?? 0, headers: kept, body });
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  async function bothLanes(path: string, headers?: Record<string, string>, method?: string, body?: string): Promise<Seen> {
    const express = await send('express', path, headers, method, body);
    const fast = await send('fast', path, headers, method, body);
    expect(fast).toEqual(express);
    return fast;
  }

  const cases: [string, string, number][] = [
    ['the first ranking page', '/api/ranking', 200],
    ['a middle ranking page', '/api/ranking?page=3&pageSize=10', 200],
    ['a ranking page past the end', '/api/ranking?page=999&pageSize=50', 200],
    ['a search by name', '/api/ranking?q=ana&pageSize=5', 200],
    ['a search by country', '/api/ranking?q=peru', 200],
    ['a search with no usable word', '/api/ranking?q=!!!', 200],
    ['a page size of 0', '/api/ranking?pageSize=0', 400],
    ['a page size that is no number', '/api/ranking?pageSize=lots', 400],
    ['a page given twice', '/api/ranking?page=1&page=2', 400],
    ['a page that is no whole number', '/api/ranking?page=1.5', 400],
    ['the country top 5', '/api/countries', 200],
    ['the headline figures', '/api/main-data', 200],
    ['the chat history', '/api/chat-messages?limit=5', 200],
    ['a chat history limit of 0', '/api/chat-messages?limit=0', 400],
    ['the global post', '/api/global-post', 200],
  ];
  for (const [what, path, status] of cases) {
    it(`answers ${what} alike (${status})`, async () => {
      const seen = await bothLanes(path);
      expect(seen.status, seen.body).toBe(status);
      expect(seen.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(seen.headers.etag).toMatch(/^W\/"/);
      expect(seen.headers['x-request-id']).toBe('read-1');
      expect(seen.headers['x-content-type-options']).toBe('nosniff');
    });
  }

  it('pages the ranking: the first page holds the top ranks, past the end holds nobody', async () => {
    const first = JSON.parse((await bothLanes('/api/ranking?pageSize=10')).body) as { total: number; items: { rank: number }[] };
    expect(first.total).toBe(120);
    expect(first.items.map((item) => item.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(JSON.parse((await bothLanes('/api/ranking?page=13&pageSize=10')).body)).toMatchObject({ total: 120, page: 13, items: [] });
    expect(JSON.parse((await bothLanes('/api/ranking?pageSize=101')).body)).toEqual({ error: expect.stringMatching(/^pageSize: /) });
  });

  it('answers 304 without a body to a matching If-None-Match, and the full body to a stale one', async () => {
    for (const path of ['/api/ranking?page=2&pageSize=20', '/api/countries', '/api/main-data']) {
      const full = await bothLanes(path);
      const notModified = await bothLanes(path, { 'if-none-match': full.headers.etag! });
      expect(notModified.status).toBe(304);
      expect(notModified.body).toBe('');
      expect(notModified.headers.etag).toBe(full.headers.etag);
      expect(notModified.headers['content-type']).toBeUndefined();
      const stale = await bothLanes(path, { 'if-none-match': 'W/"0-stale"' });
      expect(stale.status).toBe(200);
      // A browser's reload (no-cache) always gets the body.
      expect((await bothLanes(path, { 'if-none-match': full.headers.etag!, 'cache-control': 'no-cache' })).status).toBe(200);
    }
  });

  it('compresses a large read for a client that accepts gzip, and only then', async () => {
    const zipped = await bothLanes('/api/ranking?pageSize=100', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(JSON.parse(zipped.body)).toMatchObject({ total: 120, pageSize: 100 });
    const plain = await bothLanes('/api/ranking?pageSize=100');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBeGreaterThan(1024);
    expect(plain.body).toBe(zipped.body);
    // Below the threshold nothing is compressed, but the answer still varies with Accept-Encoding.
    const small = await bothLanes('/api/countries', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBe('Accept-Encoding');
    expect((await bothLanes('/api/ranking?pageSize=100', { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
  });

  it('answers HEAD with the GET headers and no body', async () => {
    for (const path of ['/api/ranking?pageSize=100', '/api/countries']) {
      const get = await bothLanes(path);
      const head = await bothLanes(path, { 'accept-encoding': 'gzip' }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.headers.etag).toBe(get.headers.etag);
    }
  });

  it('shows a newly projected member in the country top 5 on the next read, with a new ETag', async () => {
    const before = await bothLanes('/api/countries');
    const members = JSON.parse((await bothLanes('/api/main-data')).body) as { members: number };
    const userId = 'user-newcomer';
    const email = 'newcomer@example.com';
    const when = '2026-06-01T10:00:00.000Z';
    await project([
      { type: 'UserRegistered', data: { userId, email, passwordHash: 'h', points: 20, priority: '', registeredAt: when } },
      { type: 'PassesReserved', data: { reservationId: 'r-newcomer', userId, passes: 1, reservedAt: when } },
      { type: 'PassesClaimed', data: { userId, reservationId: 'r-newcomer', passes: 1, pointsSpent: 20, claimedAt: when } },
      { type: 'PassReservationConfirmed', data: { reservationId: 'r-newcomer', userId, passes: 1, confirmedAt: when } },
      {
        type: 'CertificatePosted',
        data: { userId, fullname: 'Nova Newcomer', country: 'Atlantis', email, link: '', image: { path: 'n.webp', public_id: 'n', url: '/uploads/n.webp' }, message: 'Hello', postedAt: when },
      },
    ]);
    const after = await bothLanes('/api/countries');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(JSON.parse(after.body).distinct).toBe(JSON.parse(before.body).distinct + 1);
    expect((await bothLanes('/api/countries', { 'if-none-match': before.headers.etag! })).status).toBe(200);
    expect(JSON.parse((await bothLanes('/api/main-data')).body)).toMatchObject({ members: members.members + 1 });
    expect(JSON.parse((await bothLanes('/api/ranking?q=atlantis')).body)).toMatchObject({ total: 1, items: [{ fullname: 'Nova Newcomer' }] });
  });

  it('times fast-lane reads in the query latency histogram, by route and status', async () => {
    await send('fast', '/api/global-post');
    await send('fast', '/api/ranking?pageSize=0');
    const histogram = await registry.getSingleMetricAsString('pass_query_seconds');
    expect(histogram).toContain('pass_query_seconds_count{route="/api/global-post",status="200"}');
    expect(histogram).toContain('pass_query_seconds_count{route="/api/ranking",status="400"}');
  });

  it('leaves other requests to Express and serves the command routes from the same listener', async () => {
    // A trailing slash or another case is Express's to match (it does, case- and slash-insensitively).
    expect(await send('fast', '/api/ranking/?pageSize=3')).toEqual(await send('express', '/api/ranking/?pageSize=3'));
    expect(await send('fast', '/API/countries')).toEqual(await send('express', '/API/countries'));
    // A read that needs a session, and a POST of a read path's twin, answer as before.
    expect((await bothLanes('/api/me')).status).toBe(401);
    const chat = await bothLanes('/api/chat-messages', { 'content-type': 'application/json' }, 'POST', '{}');
    expect(chat.status).toBe(401);
  });
});
