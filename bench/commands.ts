/**
 * Command-side benchmark: commands/s and latency of register, free point, claim and chat, through
 * the same code the routes and sockets use (command handler with its state cache, deciders,
 * metadata, pino logging to /dev/null), on PGlite (a directory, like standalone) and PostgreSQL.
 *
 *   node --import tsx bench/commands.ts
 *
 * - throughput: 16 concurrent clients, each its own member, as fast as they can;
 * - latency: an open-loop schedule of 500 free-point/chat commands per second, measured from the
 *   scheduled start (queueing included), against its p99 limit.
 * Time is passed in: the bench clock advances 31 s per free point, so the 30 s rule never refuses.
 * A free point needs the ticket of a countdown watched to the end: the bench signs each one with
 * the instance's session secret (as POST /api/free-point/ticket does) on the bench clock as it
 * reads when the member asks, and the award's own clock reading is 31 s later, so every ticket is
 * a countdown that has run and is newer than the member's last point.
 * PostgreSQL is measured when TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test)
 * is reachable, in a fresh schema dropped afterwards.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import type { CommandContext, EventStore, Principal } from '@pass/events';
import { emailStreams, streams } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { openPostgresEventStore } from '@pass/events/store';
import { CachedKeyStore, EncryptingEventStore, FileKeyStore, PostgresKeyStore } from '@pass/events/personal-data';
import { canConnect, dropPostgresSchema, testPostgresUrl } from '@pass/events/test-support';
import { createCommandApi, DEFAULT_LOGIN_LIMITS } from '@pass/command-api';
import { CommandHandler } from '@pass/command-api';
import { claimPasses } from '../command-api/src/passes/claim';
import { poolDecider } from '../command-api/src/passes-pool/decider';
import { hashPassword } from '../command-api/src/sessions/passwords';
import { AdViewTickets } from '@pass/command-api';
import { userDecider } from '../command-api/src/members/decider';
import { join as joinForm } from '../command-api/src/members/join';
import type { ActionLimits } from '@pass/command-api';
import type { SimulatedPaymentProvider } from '@pass/command-api';

export const COMMAND = 'node --import tsx bench/commands.ts';
const CLIENTS = 16;
/** The bench measures the command path, not the anti-abuse burst limits (a few clients send thousands). */
const unlimited = { max: Number.MAX_SAFE_INTEGER, windowMs: 1_000 };
const BENCH_ACTION_LIMITS: ActionLimits = { chatPerUser: unlimited, chatPerIp: unlimited, freePointPerUser: unlimited, freePointPerIp: unlimited, ordersPerUser: unlimited };
const RATE_PER_SECOND = 500;
const RATE_SECONDS = 4;
const TARGETS = { pglite: 2_000, postgres: 3_000, p99Ms: 25 };

interface Row {
  command: string;
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
}

interface StoreFigures {
  store: string;
  target: number;
  rows: Row[];
  rate: { command: string; p50: number; p99: number; achieved: number }[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/** `clients` loops sharing `total` operations; per-operation latency and overall rate. */
async function closedLoop(command: string, clients: number, total: number, op: (client: number, i: number) => Promise<unknown>): Promise<Row> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = next++; i < total; i = next++) {
        const t = performance.now();
        await op(client, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { command, count: total, perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** Starts one operation every 1/rate seconds whatever the previous ones do; latency from the scheduled start. */
async function openLoop(command: string, rate: number, seconds: number, op: (i: number) => Promise<unknown>) {
  const total = rate * seconds;
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const running: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    // Never before its time: a request sent early would be timed from a moment it did not wait for.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    running.push(op(i).then(() => void latencies.push(performance.now() - due)));
  }
  await Promise.all(running);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { command, p50: percentile(latencies, 50), p99: percentile(latencies, 99), achieved: total / elapsed };
}

async function measure(storeName: string, target: number, store: EventStore): Promise<StoreFigures> {
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  let nowMs = Date.parse('2026-06-01T00:00:00.000Z');
  // Every command moves time on by 31 s, so no member ever asks twice within 30 s.
  const clock = () => new Date((nowMs += 31_000));
  // Claims and registrations need no such jump (a claim must be recorded within 15 s of its reservation).
  const steady = () => new Date(nowMs);
  const uploadsDir = mkdtempSync(join(tmpdir(), 'pass-bench-uploads-'));
  const sessionSecret = 'b'.repeat(40);
  const emailStreamKey = randomBytes(32);
  const api = await createCommandApi({ eventStore: store, logger, clock, config: { uploadsDir, cookieSecure: false, sessionSecret, emailStreamKey, actionLimits: BENCH_ACTION_LIMITS } });
  const tickets = new AdViewTickets(sessionSecret);
  // Issued 1 ms past the clock's last reading: strictly after any point the member was given at it.
  const watched = (m: Principal) => ({ ticket: tickets.issue(m.id, new Date(nowMs + 1)).ticket });
  const freePoint = (m: Principal) => api.gateway.awardFreePoint(m, watched(m), { correlationId: randomUUID() });
  const handler = new CommandHandler({ eventStore: store, logger });
  const ctx = (): CommandContext => ({ correlationId: randomUUID(), causationId: randomUUID(), actor: { type: 'system', id: 'bench' }, now: steady() });
  const rowsOut: Row[] = [];
  const rate: StoreFigures['rate'] = [];
  try {
    // Members with plenty of points, registered directly (argon2 is measured in "register" below).
    const passwordHash = await hashPassword('bench1');
    const members: Principal[] = [];
    for (let i = 0; i < 64; i++) {
      const userId = randomUUID();
      await handler.handle(userDecider, streams.user(userId), { type: 'RegisterUser', data: { userId, email: `${userId}@bench.io`, passwordHash }, now: clock() }, ctx());
      await handler.handle(
        userDecider,
        streams.user(userId),
        { type: 'CreditPurchase', data: { userId, provider: 'simulated', orderId: randomUUID(), captureId: randomUUID(), amountUsd: 1000, points: 100_000 }, now: clock() },
        ctx(),
      );
      members.push({ kind: 'user', id: userId, sessionId: 'bench', expiresAt: new Date(Date.now() + 86_400_000) });
    }
    await handler.handle(poolDecider, streams.passesPool, { type: 'SetPassSupply', data: { available: 1_000_000, setBy: 'bench' }, now: clock() }, ctx());
    const member = (client: number) => members[client % members.length]!;
    const expectOk = (r: { ok: boolean }) => {
      if (!r.ok) throw new Error(`command refused: ${JSON.stringify(r)}`);
    };

    // Warm-up: JIT, connection pools, the state cache.
    await closedLoop('warm-up', CLIENTS, 1_000, (c) => freePoint(member(c)).then(expectOk));

    rowsOut.push(await closedLoop('free point', CLIENTS, 6_000, (c) => freePoint(member(c)).then(expectOk)));
    rowsOut.push(
      await closedLoop('chat message', CLIENTS, 6_000, (c) =>
        api.gateway.sendChatMessage(member(c), { message: 'hello from the bench' }, { correlationId: randomUUID() }).then(expectOk),
      ),
    );
    rowsOut.push(await closedLoop('claim 1 pass (3 appends, hot pool stream)', CLIENTS, 1_500, (c) => claimPasses({ handler, logger, clock: steady }, member(c).id, 1, ctx())));

    // The same commands through the Express routes (fetch client in this same process, keep-alive).
    // Its own instance and clock. Each bench member lives on their own timeline for the free
    // points: the request says where (x-bench-now, read by this bench's app only), so one
    // member's 31 s between points does not age the tickets of the other requests in flight
    // (with one shared clock moving per request, a request waiting behind others found its
    // ticket past the 5 minutes a ticket lasts). Sessions stay valid: 2,200 × 31 s < 24 h.
    const httpNowMs = nowMs;
    const benchNow = new AsyncLocalStorage<number>();
    const httpApi = await createCommandApi({
      eventStore: store,
      logger,
      clock: () => new Date(benchNow.getStore() ?? httpNowMs),
      config: { uploadsDir, cookieSecure: false, sessionSecret, loginLimits: { ...DEFAULT_LOGIN_LIMITS, attemptsPerIp: { max: 10_000, windowMs: 60_000 } }, actionLimits: BENCH_ACTION_LIMITS },
    });
    const app = express();
    // Parsed here, so the route runs inside the member's timeline (a body stream's callbacks would not).
    app.use(express.json({ limit: '100kb' }));
    app.use((req, _res, next) => {
      const at = Number(req.headers['x-bench-now']);
      if (Number.isFinite(at) && at > 0) benchNow.run(at, next);
      else next();
    });
    app.use(httpApi.router);
    const server = createServer(app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const cookies: string[] = [];
      const ids: string[] = [];
      for (let i = 0; i < CLIENTS; i++) {
        const res = await fetch(`${base}/api/register-user`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: `http${i}-${randomUUID().slice(0, 6)}@bench.io`, password: 'bench1' }),
        });
        const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
        const { id } = (await res.json()) as { id: string };
        const provider = httpApi.payments as SimulatedPaymentProvider;
        const { orderId } = await provider.createOrder(id, 100);
        await provider.captureOrder(orderId);
        await fetch(`${base}/api/buy-points`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ orderId }) });
        cookies.push(cookie);
        ids.push(id);
      }
      const post = async (client: number, path: string, body?: unknown, at?: number): Promise<unknown> => {
        const res = await fetch(base + path, {
          method: 'POST',
          headers: { cookie: cookies[client]!, ...(body ? { 'content-type': 'application/json' } : {}), ...(at ? { 'x-bench-now': String(at) } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
        return JSON.parse(text) as unknown;
      };
      // A member's countdown starts 1 ms after their last point (its ticket, signed as the ticket
      // route signs it) and the point is asked 31 s after that last point, on their timeline.
      const lastPointAt = ids.map(() => httpNowMs);
      const freePointOverHttp = async (c: number) => {
        const { ticket } = tickets.issue(ids[c]!, new Date(lastPointAt[c]! + 1));
        const at = lastPointAt[c]! + 31_000;
        await post(c, '/api/free-point', { ticket }, at);
        lastPointAt[c] = at;
      };
      await closedLoop('warm-up', CLIENTS, 200, freePointOverHttp);
      rowsOut.push(await closedLoop('free point over HTTP (POST /api/free-point)', CLIENTS, 2_000, freePointOverHttp));
      rowsOut.push(await closedLoop('chat message over HTTP (POST /api/chat-messages)', CLIENTS, 3_000, (c) => post(c, '/api/chat-messages', { message: 'over http' })));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await httpApi.close();
    }

    // A second of the steady rate first, unmeasured, so the timers and pools settle.
    await openLoop('warm-up', RATE_PER_SECOND, 1, (i) => freePoint(member(i)).then(expectOk));
    rate.push(await openLoop('free point', RATE_PER_SECOND, RATE_SECONDS, (i) => freePoint(member(i)).then(expectOk)));
    rate.push(
      await openLoop('chat message', RATE_PER_SECOND, RATE_SECONDS, (i) =>
        api.gateway.sendChatMessage(member(i), { message: 'hello at a steady rate' }, { correlationId: randomUUID() }).then(expectOk),
      ),
    );
    // Last: argon2id keeps the thread pool and memory busy, which would colour the figures above.
    rowsOut.push(
      await closedLoop('register (argon2id hash + 2 appends)', CLIENTS, 200, () => joinForm({ handler, clock: steady, emailStream: emailStreams(emailStreamKey) }, { email: `${randomUUID().slice(0, 12)}@b.io`, password: 'pass1' }, ctx())),
    );
  } finally {
    await api.close();
    rmSync(uploadsDir, { recursive: true, force: true });
  }
  return { store: storeName, target, rows: rowsOut, rate };
}

const PLAIN = process.env.BENCH_PLAIN_STORE === '1';

async function benchPglite(): Promise<StoreFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pass-bench-cmd-pglite-'));
  // As standalone opens it: personal fields encrypted, keys in files beside the store
  // (BENCH_PLAIN_STORE=1: the bare adapter, to measure what the encryption costs).
  const inner = await openPgliteEventStore({ dataDir: join(dataDir, 'events') });
  const store = PLAIN ? inner : new EncryptingEventStore(inner, new FileKeyStore(join(dataDir, 'member-keys')));
  try {
    return await measure('PGlite (directory)', TARGETS.pglite, store);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchPostgres(url: string): Promise<StoreFigures> {
  const schema = `cmd_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const inner = await openPostgresEventStore({ connectionString: url, schema, poolSize: CLIENTS });
  const store = PLAIN ? inner : new EncryptingEventStore(inner, new CachedKeyStore(await PostgresKeyStore.open(inner.client, schema)));
  try {
    return await measure(`PostgreSQL (pool ${CLIENTS})`, TARGETS.postgres, store);
  } finally {
    await store.close();
    await dropPostgresSchema(url, schema);
  }
}

const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const f1 = (n: number) => n.toFixed(1);

function render(figures: StoreFigures[], skipped: string[]): string {
  const lines = [
    `Reproduce: \`${COMMAND}\`. ${CLIENTS} concurrent clients (one member each, 64 members rotated for the rate runs), in-process command path (gateway/handler, as sockets and routes use it), pino logging every command to /dev/null.`,
    '',
  ];
  for (const f of figures) {
    const hot = f.rows.filter((r) => r.command === 'free point' || r.command === 'chat message');
    const meets = hot.every((r) => r.perSecond >= f.target);
    lines.push(`**${f.store}** — target ≥ ${f0(f.target)} free-point/chat commands/s: ${meets ? 'met' : 'NOT met'}`, '');
    lines.push('| command | commands | commands/s | p50 ms | p99 ms |', '|---|---:|---:|---:|---:|');
    for (const r of f.rows) lines.push(`| ${r.command} | ${f0(r.count)} | ${f0(r.perSecond)} | ${f1(r.p50)} | ${f1(r.p99)} |`);
    lines.push('', `Steady ${RATE_PER_SECOND}/s for ${RATE_SECONDS} s (target p99 < ${TARGETS.p99Ms} ms):`, '', '| command | achieved/s | p50 ms | p99 ms | target |', '|---|---:|---:|---:|---|');
    for (const r of f.rate) lines.push(`| ${r.command} | ${f0(r.achieved)} | ${f1(r.p50)} | ${f1(r.p99)} | ${r.p99 < TARGETS.p99Ms ? 'met' : 'NOT met'} |`);
    lines.push('');
  }
  for (const s of skipped) lines.push(`SKIPPED: ${s}`);
  return lines.join('\n');
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const figures: StoreFigures[] = [await benchPglite()];
  const skipped: string[] = [];
  const url = testPostgresUrl();
  const u = new URL(url);
  if (await canConnect(u.hostname || '127.0.0.1', Number(u.port || 5432))) figures.push(await benchPostgres(url));
  else skipped.push(`PostgreSQL (cannot reach ${u.hostname}:${u.port || 5432})`);
  return { title: 'Commands', markdown: render(figures, skipped) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  console.log(`## ${title}\n\n${markdown}`);
}
