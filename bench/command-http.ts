/**
 * command-api's CPU per request on its hot HTTP routes (POST /api/free-point/ticket,
 * /api/chat-messages, /api/free-point), measured in-process: the distributed command-api
 * service (infra/src/services/command-api.ts, the same app shell and settings) runs in this
 * process on PostgreSQL (a fresh schema, dropped afterwards) and Redis (a fresh key prefix,
 * deleted afterwards); a child process holds every client (keep-alive, 8 in flight) so its work
 * is not counted. The figure is this process's `process.cpuUsage()` delta over a route's
 * requests, divided by their number. Not part of bench/run.ts.
 *
 * Each route is measured on both lanes, alternately (ROUNDS rounds), so both see the same
 * machine: `fast` sends the exact path (the fast lane in front of Express,
 * infra/src/http/fast-lane.ts), `express` the same path with a query string, which the fast
 * lane leaves to Express (the path of every other request).
 *
 *   node --import tsx bench/command-http.ts
 *   BENCH_REQUESTS=2000 (per route, lane and round) · BENCH_WARMUP=300 (per route and lane, not counted) · BENCH_ROUNDS=2
 *   BENCH_CPU_PROF=<dir>: a CPU profile of this process per route and lane, over the last round's requests only
 *
 * The product's limits are met, not bypassed: members are seeded (UserRegistered appended, a
 * session issued into the Redis store command-api reads), each sends at most 5 chat messages and
 * earns one free point with a ticket issued 30 s ago; client addresses (X-Forwarded-For from the
 * loopback proxy, as the Node proxy sends) hold 5 chat senders or 50 free-point earners each.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { openPersonalDataEventStore } from '@pass/events/store';
import { dropPostgresSchema, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { AdViewTickets } from '@pass/command-api';
import { deleteKeysUnder } from '@pass/projector';
import { parseSettings } from '@pass/infra';
import { seedSignedInMembers } from './seed-members';
import { startCommandApiService } from '@pass/infra';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const IN_FLIGHT = 8;
const CHATS_PER_MEMBER = 5;

type Route = 'ticket' | 'chat' | 'free-point';
const ROUTES: Route[] = ['ticket', 'chat', 'free-point'];
type Lane = 'express' | 'fast';
const LANES: Lane[] = ['express', 'fast'];

interface Member {
  userId: string;
  cookie: string;
}

/** What the driver needs: where to send, who the members are, and the secret tickets are made with. */
interface Plan {
  url: string;
  members: Member[];
  secret: string;
}

type ToDriver = { type: 'plan'; plan: Plan } | { type: 'run'; route: Route; lane: Lane; from: number; count: number };
type FromDriver = { type: 'ready' } | { type: 'done'; route: Route; statuses: Record<string, number> };

// ---------------------------------------------------------------- the driver (child process)

function post(agent: Agent, url: URL, path: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), origin: url.origin, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

/** Request `n` of a route: who sends it, from which address, with what body. */
function requestFor(plan: Plan, tickets: AdViewTickets, route: Route, lane: Lane, n: number): { path: string; body: string; headers: Record<string, string> } {
  const r = requestOn(plan, tickets, route, n);
  return lane === 'fast' ? r : { ...r, path: `${r.path}?lane=express` };
}

function requestOn(plan: Plan, tickets: AdViewTickets, route: Route, n: number): { path: string; body: string; headers: Record<string, string> } {
  if (route === 'ticket') {
    const member = plan.members[n % plan.members.length]!;
    return { path: '/api/free-point/ticket', body: '{}', headers: { cookie: member.cookie, 'x-forwarded-for': `10.1.${(n >> 8) & 255}.${n & 255}` } };
  }
  if (route === 'chat') {
    const m = Math.floor(n / CHATS_PER_MEMBER);
    const member = plan.members[m]!;
    const address = Math.floor(m / 5);
    return {
      path: '/api/chat-messages',
      body: JSON.stringify({ message: `hello from ${m} #${n % CHATS_PER_MEMBER}`, requestId: randomUUID() }),
      headers: { cookie: member.cookie, 'x-forwarded-for': `10.2.${(address >> 8) & 255}.${address & 255}` },
    };
  }
  const member = plan.members[n]!;
  const address = Math.floor(n / 50);
  const { ticket } = tickets.issue(member.userId, new Date(Date.now() - 30_000));
  return { path: '/api/free-point', body: JSON.stringify({ ticket }), headers: { cookie: member.cookie, 'x-forwarded-for': `10.3.${(address >> 8) & 255}.${address & 255}` } };
}

function runDriver(): void {
  let plan: Plan | undefined;
  let tickets: AdViewTickets | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  process.on('message', (message: ToDriver) => {
    if (message.type === 'plan') {
      plan = message.plan;
      tickets = new AdViewTickets(plan.secret);
      process.send!({ type: 'ready' } satisfies FromDriver);
      return;
    }
    const url = new URL(plan!.url);
    const statuses: Record<string, number> = {};
    let next = message.from;
    const end = message.from + message.count;
    void Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let n = next++; n < end; n = next++) {
          const r = requestFor(plan!, tickets!, message.route, message.lane, n);
          const status = await post(agent, url, r.path, r.body, r.headers);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    ).then(() => {
      process.send!({ type: 'done', route: message.route, statuses } satisfies FromDriver);
    });
  });
}

// ---------------------------------------------------------------- the server side (this process)

async function seedMembers(storeUrl: string, prefix: string, secret: string, count: number): Promise<Member[]> {
  // Through the personal-data decorator, as a join stores a member (e-mail sealed under their key).
  const store = await openPersonalDataEventStore(storeUrl);
  try {
    return await seedSignedInMembers({ store, sessionsPrefix: `${prefix}sessions:`, secret, count, emailTag: prefix });
  } finally {
    await store.close();
  }
}

/** BENCH_CPU_PROF: profiles `work` into `<dir>/command-http-<name>.cpuprofile`; otherwise just runs it. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `command-http-${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function main(): Promise<void> {
  const run = randomUUID().replaceAll('-', '').slice(0, 12);
  const schema = `cmd_http_bench_${run}`;
  const prefix = `bench:cmdhttp:${run}:`;
  const secret = `bench-secret-${run}-0123456789abcdef`;
  const dir = mkdtempSync(join(tmpdir(), 'pass-bench-cmdhttp-'));
  const storeUrl = new URL(testPostgresUrl());
  storeUrl.searchParams.set('schema', schema);
  const settings = parseSettings({
    EVENT_STORE_URL: storeUrl.toString(),
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: prefix,
    SESSION_SECRET: secret,
    DATA_DIR: dir,
    UPLOADS_DIR: join(dir, 'uploads'),
    COOKIE_SECURE: 'false',
    HOST: '127.0.0.1',
    PORT: '0',
  });
  // The service's own logger settings (infra/src/logger.ts), info level, into /dev/null: access lines are built and written as in production.
  const logger = pino(
    { level: 'info', base: { service: 'command-api' }, redact: { paths: ['req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.passwordHash'], remove: true } },
    pino.destination({ dest: '/dev/null', sync: false, minLength: 8 * 1024 }),
  );
  const service = await startCommandApiService(settings, logger);
  const driver = fork(fileURLToPath(import.meta.url), ['--driver'], { execArgv: process.execArgv, stdio: 'inherit' });
  try {
    const perRoute = LANES.length * (WARMUP + ROUNDS * REQUESTS);
    const members = await seedMembers(storeUrl.toString(), prefix, secret, perRoute);
    const reply = (type: FromDriver['type']) => new Promise<FromDriver>((done) => driver.once('message', (m: FromDriver) => (m.type === type ? done(m) : undefined)));
    const ready = reply('ready');
    driver.send({ type: 'plan', plan: { url: service.url, members, secret } } satisfies ToDriver);
    await ready;

    // Request numbers per route: each free-point request and every fifth chat message takes a member of its own.
    const next: Record<Route, number> = { ticket: 0, chat: 0, 'free-point': 0 };
    const run = async (route: Route, lane: Lane, count: number) => {
      const from = next[route];
      next[route] += count;
      const done = reply('done');
      driver.send({ type: 'run', route, lane, from, count } satisfies ToDriver);
      return (await done) as Extract<FromDriver, { type: 'done' }>;
    };
    const cpuMs: Record<string, number[]> = {};
    const statuses: Record<string, Record<string, number>> = {};
    for (const route of ROUTES) for (const lane of LANES) await run(route, lane, WARMUP);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const route of ROUTES) {
        for (const lane of LANES) {
          const key = `${route} ${lane}`;
          const cpu0 = process.cpuUsage();
          const result = round === ROUNDS ? await profiled(`${route}-${lane}`, () => run(route, lane, REQUESTS)) : await run(route, lane, REQUESTS);
          const cpu = process.cpuUsage(cpu0);
          (cpuMs[key] ??= []).push((cpu.user + cpu.system) / 1000 / REQUESTS);
          for (const [status, n] of Object.entries(result.statuses)) (statuses[key] ??= {})[status] = (statuses[key]?.[status] ?? 0) + n;
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rows = ROUTES.map((route) => {
      const [express, fast] = LANES.map((lane) => cpuMs[`${route} ${lane}`]!);
      const cell = (xs: number[]) => `${mean(xs).toFixed(3)} (${xs.map((x) => x.toFixed(3)).join(', ')})`;
      return `| ${route} | ${cell(express!)} | ${cell(fast!)} | ${(mean(fast!) / mean(express!)).toFixed(2)} | ${JSON.stringify(statuses[`${route} express`])} / ${JSON.stringify(statuses[`${route} fast`])} |`;
    });
    process.stdout.write(
      `command-api CPU ms per request (mean of ${ROUNDS} rounds, each round in brackets), ${REQUESTS} requests per route, lane and round after ${WARMUP} warm-up, ${IN_FLIGHT} in flight (keep-alive)\n` +
        `| route | Express lane | fast lane | fast / Express | statuses (Express / fast) |\n|---|---|---|---|---|\n${rows.join('\n')}\n`,
    );
  } finally {
    driver.kill();
    await service.close();
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
    await deleteKeysUnder(redis, prefix.replace(/:$/, '')).finally(() => redis.disconnect());
    await dropPostgresSchema(testPostgresUrl(), schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--driver')) runDriver();
else
  await main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
      process.exit(1);
    },
  );
