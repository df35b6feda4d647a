import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import { EventStoreUnavailableError, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { AdViewTickets } from '@pass/command-api';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppShell, createFastLaneShell, type AppShellOptions } from './app-shell';
import { withFastLane } from './fast-lane';

const SECRET = 's'.repeat(40);
const NOW = new Date('2026-03-01T12:00:00.000Z');
/** Headers that differ between any two responses (transport, time): everything else must match. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive']);
/** A header value standing for this server's own origin (known once it listens). */
const SELF = 'self-origin';

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

describe('the command-api fast lane answers exactly as the Express lane', () => {
  let store: EventStore;
  let storeDown = false;
  let api: CommandApi;
  let server: Server;
  let base: string;
  let uploadsDir: string;
  const members = new Map<string, { id: string; cookie: string }>();

  beforeAll(async () => {
    const real = await openPgliteEventStore();
    store = real;
    // The store as an outage would leave it: appends fail as "unavailable" while storeDown.
    const flaky = new Proxy(real, {
      get(target, name) {
        if (name === 'append' && storeDown) return () => Promise.reject(new EventStoreUnavailableError('the database is down'));
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    uploadsDir = await mkdtemp(join(tmpdir(), 'fast-lane-'));
    api = await createCommandApi({
      eventStore: flaky,
      logger: pino({ level: 'silent' }),
      clock: () => NOW,
      config: {
        uploadsDir,
        cookieSecure: false,
        sessionSecret: SECRET,
        // The per-member chat limit is low enough to reach; addresses never limit here.
        actionLimits: {
          chatPerUser: { max: 2, windowMs: 10_000 },
          chatPerIp: { max: 10_000, windowMs: 10_000 },
          freePointPerUser: { max: 10_000, windowMs: 60_000 },
          freePointPerIp: { max: 10_000, windowMs: 60_000 },
          ordersPerUser: { max: 10_000, windowMs: 60_000 },
        },
      },
    });
    const shell: AppShellOptions = { logger: pino({ level: 'silent' }), serveWebApp: false, routers: [api.router] };
    const laneShell = createFastLaneShell(shell);
    server = createServer(withFastLane(createAppShell(shell, laneShell), laneShell, api.fastLane));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Members with e-mails of one length, so answers naming them have equal lengths.
    for (const name of ['m1', 'fa', 'fb', 'ca', 'cb']) {
      const res = await fetch(`${base}/api/register-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `${name}@lane.io`, password: 'pass1234' }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const body = (await res.json()) as { id: string };
      members.set(name, { id: body.id, cookie: res.headers.getSetCookie()[0]!.split(';')[0]! });
    }
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    await api.close();
    await store.close();
    await rm(uploadsDir, { recursive: true, force: true });
  });

  /** POST to the fast lane (the exact path) or to Express (the same path with a query, which the fast lane leaves alone). */
  async function post(lane: 'fast' | 'express', path: string, init: { member?: string; body?: string; headers?: Record<string, string> }): Promise<Seen> {
    const cookie = init.member ? members.get(init.member)!.cookie : undefined;
    const given = Object.fromEntries(Object.entries(init.headers ?? {}).map(([name, value]) => [name, value === SELF ? base : value]));
    const res = await fetch(`${base}${path}${lane === 'express' ? '?lane=express' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': `req-${path.length}`, ...(cookie ? { cookie } : {}), ...given },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!TRANSPORT.has(name)) headers[name] = value;
    });
    return { status: res.status, headers, body: await res.text() };
  }

  const ticket = (member: string, watchedMs: number) => new AdViewTickets(SECRET).issue(members.get(member)!.id, new Date(NOW.getTime() - watchedMs)).ticket;
  const chat = (message: string, requestId?: string) => JSON.stringify({ message, ...(requestId ? { requestId } : {}) });

  // Requests whose answer does not depend on which lane went first: each is sent to both lanes in turn.
  const sameState: [string, string, { member?: string; body?: () => string; headers?: Record<string, string> }, number][] = [
    ['a ticket', '/api/free-point/ticket', { member: 'm1', body: () => '{}' }, 200],
    ['a ticket without a body', '/api/free-point/ticket', { member: 'm1' }, 200],
    ['a guest asking for a ticket', '/api/free-point/ticket', { body: () => '{}' }, 401],
    ['a guest chatting', '/api/chat-messages', { body: () => chat('hello') }, 401],
    ['a guest earning a point', '/api/free-point', { body: () => '{}' }, 401],
    ['a cross-site chat message', '/api/chat-messages', { member: 'm1', body: () => chat('hello'), headers: { origin: 'https://evil.example' } }, 403],
    ['a cross-site ticket (Referer only)', '/api/free-point/ticket', { member: 'm1', body: () => '{}', headers: { referer: 'https://evil.example/page' } }, 403],
    ['a same-site chat message with an invalid draft', '/api/chat-messages', { member: 'm1', body: () => chat(''), headers: { origin: SELF } }, 400],
    ['an oversize chat message', '/api/chat-messages', { member: 'm1', body: () => chat('x'.repeat(200_000)) }, 413],
    ['invalid JSON', '/api/chat-messages', { member: 'm1', body: () => '{"message": ' }, 400],
    ['a body that is not JSON', '/api/chat-messages', { member: 'm1', body: () => 'hello', headers: { 'content-type': 'text/plain' } }, 400],
    ['an unsupported charset', '/api/free-point', { member: 'm1', body: () => '{}', headers: { 'content-type': 'application/json; charset=klingon' } }, 415],
    ['a free point without a ticket', '/api/free-point', { member: 'm1', body: () => '{}' }, 400],
    ['a free point before the countdown ends', '/api/free-point', { member: 'm1', body: () => JSON.stringify({ ticket: ticket('m1', 0) }), headers: { 'x-forwarded-for': '10.9.8.7' } }, 429],
    ['a caller-chosen request id', '/api/free-point/ticket', { member: 'm1', body: () => '{}', headers: { 'x-request-id': 'my-own.id:1' } }, 200],
    ['a gzip-accepting caller', '/api/free-point/ticket', { member: 'm1', body: () => '{}', headers: { 'accept-encoding': 'gzip, br' } }, 200],
  ];

  for (const [what, path, request, status] of sameState) {
    it(`answers ${what} alike (${status})`, async () => {
      const init = { ...request, body: request.body?.() };
      const express = await post('express', path, init);
      const fast = await post('fast', path, init);
      expect(express.status, express.body).toBe(status);
      expect(fast).toEqual(express);
    });
  }

  it('sends a chat message alike: the retry on the other lane gets the first answer, in either order', async () => {
    for (const [first, second] of [['fast', 'express'], ['express', 'fast']] as const) {
      const body = chat(`sent first on the ${first} lane`, `draft-${first}`);
      const a = await post(first, '/api/chat-messages', { member: 'm1', body });
      const b = await post(second, '/api/chat-messages', { member: 'm1', body });
      expect(a.status, a.body).toBe(201);
      expect(b).toEqual(a);
    }
  });

  it('awards a free point alike (two members with the same history, one per lane)', async () => {
    const fast = await post('fast', '/api/free-point', { member: 'fa', body: JSON.stringify({ ticket: ticket('fa', 29_000) }) });
    const express = await post('express', '/api/free-point', { member: 'fb', body: JSON.stringify({ ticket: ticket('fb', 29_000) }) });
    expect(express.status, express.body).toBe(200);
    const named = (seen: Seen, member: string) => ({ ...seen, headers: { ...seen.headers, etag: '' }, body: seen.body.replaceAll(members.get(member)!.id, 'ID').replaceAll(`${member}@`, 'member@') });
    expect(named(fast, 'fa')).toEqual(named(express, 'fb'));
    expect(JSON.parse(fast.body)).toMatchObject({ user: { id: members.get('fa')!.id, chatCount: 11 } });
  });

  it('refuses a chat message over the member limit alike, with Retry-After', async () => {
    const seen: Record<string, Seen> = {};
    for (const [lane, member] of [['fast', 'ca'], ['express', 'cb']] as const) {
      for (let i = 0; i < 2; i++) expect((await post(lane, '/api/chat-messages', { member, body: chat(`message ${i}`) })).status).toBe(201);
      seen[lane] = await post(lane, '/api/chat-messages', { member, body: chat('one too many') });
    }
    expect(seen.express!.status).toBe(429);
    expect(seen.express!.headers['retry-after']).toMatch(/^\d+$/);
    expect(seen.fast).toEqual(seen.express);
  });

  it('answers 503 with Retry-After alike while the event store is unavailable', async () => {
    storeDown = true;
    try {
      // A member under the chat limit (m1 has reached it by now).
      const express = await post('express', '/api/chat-messages', { member: 'fa', body: chat('during the outage') });
      const fast = await post('fast', '/api/chat-messages', { member: 'fa', body: chat('during the outage') });
      expect(express.status, express.body).toBe(503);
      expect(express.headers['retry-after']).toBe('5');
      expect(fast).toEqual(express);
    } finally {
      storeDown = false;
    }
  });

  it('leaves every other request to Express (a GET of a hot path is a 404 JSON answer)', async () => {
    const res = await fetch(`${base}/api/chat-messages`, { headers: { 'x-request-id': 'get-1' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('get-1');
    expect(await res.json()).toEqual({ error: 'Not found' });
  });
});
