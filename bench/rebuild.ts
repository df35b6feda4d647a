/**
 * Full rebuild of every read model from 10,000,000 events: the admin rebuild path of the
 * projector (createProjectionRuntime().runRebuild(): catch-up of a fresh Redis keyspace from
 * position 0, then the switch of readers), reading a PostgreSQL event store, in a child process
 * whose peak memory is its own. Targets: < 200 s, at most 1.5× PostgreSQL's read floor of the same
 * events (measured just before, in the same run), and a peak RSS < 4 GiB.
 *
 *   node --import tsx bench/rebuild.ts        (BENCH_REBUILD_EVENTS=1000000 for a quicker run)
 *
 * The store is seeded once per event count into the database `pass_bench_rebuild` (created
 * through TEST_POSTGRES_URL's database, default postgres://postgres@127.0.0.1:5432/test), schema
 * `rebuild_<count>`, by COPY into the store's own tables (sql/schema.ts's schema, rows as its append
 * functions write them), and kept: a marker row names the generator version, so a later run does
 * not seed again. BENCH_REBUILD_RESEED=1 seeds again. Redis at TEST_REDIS_URL (default
 * redis://127.0.0.1:6379), under a fresh root removed afterwards (never FLUSHDB: shared Redis).
 * BENCH_REBUILD_SEED_ONLY=1 stops after seeding. BENCH_REBUILD_CPU_PROF=<dir> passes --cpu-prof to the
 * rebuild process.
 *
 * The events are stored as the product stores them: personal fields sealed with their member's
 * key (the seed writes `member_keys` beside the events), and the rebuild opens the store through
 * `openPersonalDataEventStore`, as the projector does. BENCH_REBUILD_PLAIN=1 seeds and reads a
 * store without encryption (schema `rebuild_plain_<count>`), to measure what encryption costs.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { emailStreams, eventSchemaVersions, type DomainEvent } from '@pass/events';
import { encryptEvent, personalFieldsOf, PostgresKeyStore } from '@pass/events/personal-data';
import { assertSchemaName } from '../events/src/event-store/sql/identifiers';
import { setupSchema } from '../events/src/event-store/sql/schema';
import { canConnect, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { deleteKeysUnder } from '@pass/projector';
import { SERVICE_NODE_FLAGS } from '../infra/src/services/node-flags';
import { streamOf } from '@pass/projector/test-support';
import { generateEvents, rng } from '@pass/projector/test-support';
import { machineTicks, watchCommandCpu } from './proc-cpu';
import { fasterOfTwo, FLOOR_PAGE, readAllPages } from './read-floor';

export const COMMAND = 'node --import tsx bench/rebuild.ts';
const EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 10_000_000);
const TARGET_SECONDS = 200;
const TARGET_RSS = 4 * 2 ** 30;
/** Target: the rebuild within this many times PostgreSQL's read floor of the same events. */
const FLOOR_TARGET = 1.5;
const DATABASE = 'pass_bench_rebuild';
/** Bump when the seeded events change (generator, mix, row shape): older seeds are redone. */
const GENERATOR_VERSION = 2;
/** Without the personal-data encryption the product stores with (to measure what it costs). */
const PLAIN = process.env.BENCH_REBUILD_PLAIN === '1';
/** Events per generated user in the mix below (about 11.2 measured): users to generate, with a margin. */
const EVENTS_PER_USER = 10.5;
/** Activity factor of generateEvents: ~5.5 free points per user, chat and card updates scaled. */
const ACTIVITY = 3;
/** Members active at the same time: their events interleave in the global order, as on the site. */
const CONCURRENT_USERS = 5_000;
/**
 * Events per COPY transaction (one transaction id each, as a large append would have). Small:
 * while one runs, $all readers of every store on the server wait for it (cluster-wide horizon).
 */
const COPY_CHUNK = 10_000;
/** The seeded site's e-mail stream names (the key of an installation of its own). */
const emailStream = emailStreams(Buffer.alloc(32, 0xb5));

const schemaName = (events: number) => (PLAIN ? `rebuild_plain_${events}` : `rebuild_${events}`);
const benchUrl = () => {
  const u = new URL(testPostgresUrl());
  u.pathname = `/${DATABASE}`;
  return u.toString();
};

// ---------------------------------------------------------------- seeding

/** The generator's events as real traffic: the command side's extra events, members interleaved. */
function* traffic(users: number): Generator<DomainEvent> {
  const random = rng(7);
  const active: DomainEvent[][] = [];
  let session: DomainEvent[] | undefined;
  const emitFrom = function* (): Generator<DomainEvent> {
    // A random active member does their next thing; a member with nothing left leaves.
    const k = Math.floor(random() * active.length);
    const queue = active[k]!;
    yield queue.shift()!;
    if (queue.length === 0) {
      active[k] = active[active.length - 1]!;
      active.pop();
    }
  };
  for (const event of generateEvents({ users, seed: 1, activity: ACTIVITY })) {
    if (event.type === 'UserRegistered') {
      if (session) active.push(session);
      // Registration reserves the e-mail on its own stream first (email-decider).
      session = [{ type: 'EmailReserved', data: { email: event.data.email, userId: event.data.userId, reservedAt: event.data.registeredAt } }, event];
      while (active.length >= CONCURRENT_USERS) yield* emitFrom();
      continue;
    }
    if (!session) {
      yield event; // the site's set-up events before the first member
      continue;
    }
    session.push(event);
    if (event.type === 'PassesClaimed') {
      // The reconciler confirms a claimed reservation on the pool (pool-decider).
      const { reservationId, userId, passes, claimedAt } = event.data;
      session.push({ type: 'PassReservationConfirmed', data: { reservationId, userId, passes, confirmedAt: claimedAt } });
    }
  }
  if (session) active.push(session);
  while (active.length > 0) yield* emitFrom();
}


/** COPY text format: JSON has no raw tab or newline, only backslashes to double. */
const copyText = (s: string) => (s.includes('\\') ? s.replaceAll('\\', '\\\\') : s);

interface SeedResult {
  seconds: number;
  mix: Map<string, number>;
  streams: number;
}

async function writeCopy(client: pg.Client, sql: string, rows: Iterable<string>): Promise<void> {
  const stream = client.query(copyFrom(sql));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let buffer = '';
  for (const row of rows) {
    buffer += row;
    if (buffer.length > 1 << 20) {
      if (!stream.write(buffer)) await new Promise((r) => stream.once('drain', r));
      buffer = '';
    }
  }
  stream.end(buffer);
  await done;
}

async function seed(client: pg.Client, schema: string, events: number): Promise<SeedResult> {
  const started = performance.now();
  const s = `"${schema}"`;
  await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await setupSchema((sql) => client.query(sql), schema);
  // The store's indexes stay in place during the load: building them afterwards is faster, but
  // CREATE INDEX holds a transaction id for its whole run, and the store's $all horizon
  // (pg_snapshot_xmin) is cluster-wide, so every other event store on the server would stop
  // delivering for that long. Short COPY transactions delay them by one chunk at most.
  await client.query(`SET synchronous_commit = off`);

  const users = Math.ceil(events / EVENTS_PER_USER) + 1_000;
  const revisions = new Map<string, number>();
  const mix = new Map<string, number>();
  // One key per member, created at their first personal field, as the store's append does.
  const keys = new Map<string, Buffer>();
  const stored = (event: DomainEvent): DomainEvent => {
    if (PLAIN) return event;
    const spec = personalFieldsOf(event.type);
    if (!spec) return event;
    const owner = String((event.data as Record<string, unknown>)[spec.owner]);
    if (!keys.has(owner)) keys.set(owner, randomBytes(32)); // AES-256, as the key stores make them
    return encryptEvent(event, keys);
  };
  const source = traffic(users)[Symbol.iterator]();
  let clock = Date.UTC(2026, 0, 1);
  let written = 0;
  const rows = function* (limit: number): Generator<string> {
    for (let n = 0; n < limit; n++) {
      const next = source.next();
      if (next.done) throw new Error(`The generator ran out after ${written} events; raise EVENTS_PER_USER's margin`);
      const event = next.value;
      const stream = event.type === 'EmailReserved' ? emailStream(event.data.email) : streamOf(event);
      const revision = (revisions.get(stream) ?? -1) + 1;
      revisions.set(stream, revision);
      mix.set(event.type, (mix.get(event.type) ?? 0) + 1);
      const id = randomUUID();
      const at = new Date((clock += 3_000 + (n % 7) * 500)).toISOString();
      // Metadata as the command handler writes it (eventMetadataSchema).
      const metadata = {
        eventId: id,
        correlationId: id,
        causationId: id,
        actor: event.type === 'PassReservationConfirmed' ? { type: 'system', id: 'reconciler' } : { type: 'user', id: 'userId' in event.data ? event.data.userId : 'admin-1' },
        schemaVersion: eventSchemaVersions[event.type],
        occurredAt: at,
      };
      written++;
      yield `${id}\t${copyText(stream)}\t${revision}\t${event.type}\t${copyText(JSON.stringify(stored(event).data))}\t${copyText(JSON.stringify(metadata))}\t${at}\n`;
    }
  };
  while (written < events) {
    const chunk = Math.min(COPY_CHUNK, events - written);
    // One transaction per chunk: its rows share a transaction id, ordered by global_position.
    await client.query('BEGIN');
    await writeCopy(client, `COPY ${s}.events (event_id, stream_id, revision, type, data, metadata, recorded_at) FROM STDIN`, rows(chunk));
    await client.query('COMMIT');
    if (written % 200_000 === 0) process.stderr.write(`rebuild bench: seeded ${written.toLocaleString('en-US')} / ${events.toLocaleString('en-US')} events\r`);
  }
  process.stderr.write('\n');
  await writeCopy(
    client,
    `COPY ${s}.streams (stream_id, revision) FROM STDIN`,
    (function* () {
      for (const [stream, revision] of revisions) yield `${copyText(stream)}\t${revision}\n`;
    })(),
  );
  if (!PLAIN) {
    await PostgresKeyStore.open(client, schema); // creates member_keys as the product does
    await writeCopy(
      client,
      `COPY ${s}.member_keys (member_id, key) FROM STDIN`,
      (function* () {
        for (const [member, key] of keys) yield `${copyText(member)}\t\\\\x${key.toString('hex')}\n`;
      })(),
    );
  }
  await client.query(`VACUUM (ANALYZE) ${s}.events`);
  await client.query(`VACUUM (ANALYZE) ${s}.streams`);
  await verifyAppend(client, schema, revisions);
  return { seconds: (performance.now() - started) / 1000, mix, streams: revisions.size };
}

/** A later append to a seeded stream must find its revision (inside a rolled-back transaction). */
async function verifyAppend(client: pg.Client, schema: string, revisions: Map<string, number>): Promise<void> {
  const [stream, revision] = [...revisions].find(([id]) => id.startsWith('user-'))!;
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(`SELECT "${schema}".append_event($1, $2, $3::uuid, 'Check', '{}'::jsonb, '{}'::jsonb)`, [stream, revision, id]);
    const wrong = await client.query(`SELECT "${schema}".append_event($1, $2, $3::uuid, 'Check', '{}'::jsonb, '{}'::jsonb)`, [stream, revision, randomUUID()]).then(
      () => false,
      (error: { code?: string }) => error.code === 'ES409',
    );
    if (!wrong) throw new Error('seeded streams: a stale expected revision was not refused');
  } finally {
    await client.query('ROLLBACK');
  }
}

interface SeedMarker {
  events: number;
  version: number;
  seconds: number;
  mix: Record<string, number>;
  streams: number;
}

/** The seeded store for `events`, reusing a complete seed of the same generator version. */
async function ensureSeeded(events: number): Promise<{ schema: string; marker: SeedMarker; reused: boolean }> {
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  const schema = schemaName(events);
  assertSchemaName(schema);
  const client = new pg.Client({ connectionString: benchUrl(), application_name: 'bench-rebuild-seed' });
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS public.bench_seeds (schema_name text PRIMARY KEY, marker jsonb NOT NULL)`);
    const found = await client.query<{ marker: SeedMarker }>('SELECT marker FROM public.bench_seeds WHERE schema_name = $1', [schema]);
    const old = found.rows[0]?.marker;
    if (old && old.version === GENERATOR_VERSION && old.events === events && process.env.BENCH_REBUILD_RESEED !== '1') {
      return { schema, marker: old, reused: true };
    }
    await client.query('DELETE FROM public.bench_seeds WHERE schema_name = $1', [schema]);
    process.stderr.write(`rebuild bench: seeding ${events.toLocaleString('en-US')} events into ${DATABASE}.${schema}\n`);
    const result = await seed(client, schema, events);
    const marker: SeedMarker = { events, version: GENERATOR_VERSION, seconds: result.seconds, mix: Object.fromEntries(result.mix), streams: result.streams };
    // Written last: an interrupted seed has no marker and is redone.
    await client.query('INSERT INTO public.bench_seeds (schema_name, marker) VALUES ($1, $2)', [schema, JSON.stringify(marker)]);
    return { schema, marker, reused: false };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- the rebuild (child process)

interface ChildResult {
  events: number;
  seconds: number;
  /** The deferred search index's build, part of `seconds` (the rebuild switches readers once it is built); null when not logged. */
  indexSeconds: number | null;
  cpuSeconds: number;
  /** Of cpuSeconds, the kernel's (page faults are counted there). */
  systemSeconds: number;
  /** Minor page faults of the rebuild process: memory it touched for the first time. */
  minorFaults: number;
  peakRssBytes: number;
  batches: number;
  /** What the machine's cores spent meanwhile (every process), and PostgreSQL's processes of it (NaN when none runs here). */
  machineSeconds: number;
  postgresSeconds: number;
}

async function child(): Promise<void> {
  const [{ pino }, { Registry }, { openPostgresEventStore, openPersonalDataEventStore }, { createRedisReadModels }, { createProjectionRuntime }] = await Promise.all([
    import('pino'),
    import('prom-client'),
    import('@pass/events/store'),
    import('@pass/projector'),
    import('@pass/projector'),
  ]);
  // The projector's own log line gives the search index build's time; the rest goes to stderr
  // from BENCH_REBUILD_LOG's level up (warn by default).
  const shown = pino.levels.values[process.env.BENCH_REBUILD_LOG ?? 'warn'] ?? 40;
  let indexMs: number | undefined;
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        const entry = JSON.parse(line) as { level: number; msg?: string; ms?: number };
        if (entry.msg === 'search index built' && entry.ms !== undefined) indexMs = entry.ms;
        if (entry.level >= shown) process.stderr.write(line);
      },
    },
  );
  const schema = process.env.BENCH_REBUILD_SCHEMA!;
  const eventStore = PLAIN
    ? await openPostgresEventStore({ connectionString: benchUrl(), schema, logger })
    : await openPersonalDataEventStore(`${benchUrl()}?schema=${schema}`, { logger });
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const readModels = createRedisReadModels({ redis, root: process.env.BENCH_REBUILD_ROOT! });
  let batches = 0;
  let processed = 0;
  const runtime = createProjectionRuntime({
    eventStore,
    readModels,
    logger,
    metrics: new Registry(),
    // Production passes none (the store's default); set only to compare batch sizes.
    ...(process.env.BENCH_REBUILD_BATCH ? { maxBatchSize: Number(process.env.BENCH_REBUILD_BATCH) } : {}),
    onRebuildState: (state) => {
      batches++;
      processed = state.processed;
    },
  });
  const machine0 = machineTicks();
  const postgres = watchCommandCpu('postgres');
  const started = performance.now();
  const cpu = process.cpuUsage();
  const faults = process.resourceUsage().minorPageFault;
  const progress = setInterval(() => {
    process.stderr.write(`rebuild bench: ${processed.toLocaleString('en-US')} events after ${((performance.now() - started) / 1000).toFixed(0)} s\r`);
  }, 5_000);
  await runtime.runRebuild();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(progress);
  const used = process.cpuUsage(cpu);
  // Read before the store's connections close (a backend that exits takes its CPU with it), and
  // every second before that: the pool closes connections left idle during the index build.
  const postgresSeconds = postgres.stop();
  const machine1 = machineTicks();
  const state = runtime.rebuildState();
  if (state.state !== 'idle') throw new Error(`rebuild ended ${state.state}`);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  const result: ChildResult = {
    events: state.processed,
    seconds,
    indexSeconds: indexMs === undefined ? null : indexMs / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    systemSeconds: used.system / 1e6,
    minorFaults: process.resourceUsage().minorPageFault - faults,
    peakRssBytes: hwm ? Number(hwm[1]) * 1024 : NaN,
    batches,
    machineSeconds: (machine1.busy - machine0.busy) / 100,
    postgresSeconds,
  };
  await runtime.stop();
  await eventStore.close();
  redis.disconnect();
  process.send!(result);
}

function runChild(schema: string, root: string, interrupted: (kill: () => void) => void): Promise<ChildResult> {
  const profile = process.env.BENCH_REBUILD_CPU_PROF;
  const proc = fork(fileURLToPath(import.meta.url), [], {
    execArgv: [
      // The projector process's own flags: the rebuild runs there in production.
      ...SERVICE_NODE_FLAGS.projector,
      '--import',
      'tsx',
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
      ...(process.env.BENCH_REBUILD_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    env: { ...process.env, BENCH_REBUILD_CHILD: '1', BENCH_REBUILD_SCHEMA: schema, BENCH_REBUILD_ROOT: root },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  interrupted(() => proc.kill());
  return new Promise((resolve, reject) => {
    let result: ChildResult | undefined;
    proc.on('message', (m) => (result = m as ChildResult));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      process.stderr.write('\n');
      if (result) resolve(result);
      else reject(new Error(`rebuild process exited with ${signal ?? code} before reporting`));
    });
  });
}

// ---------------------------------------------------------------- floor

/**
 * PostgreSQL's own read rate of the same events (read-floor.ts), parsed by the driver: seconds,
 * with the CPU the reading client and PostgreSQL's processes spent meanwhile.
 */
async function readFloor(schema: string): Promise<{ seconds: number; rows: number; clientSeconds: number; postgresSeconds: number }> {
  const client = new pg.Client({ connectionString: benchUrl() });
  await client.connect();
  try {
    const postgres = watchCommandCpu('postgres');
    const cpu = process.cpuUsage();
    const started = performance.now();
    const rows = await readAllPages((sql, params) => client.query(sql, params), schema);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return { seconds, rows, clientSeconds: (used.user + used.system) / 1e6, postgresSeconds: postgres.stop() };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- report

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
const n = (x: number) => Math.round(x).toLocaleString('en-US');
const cpuText = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} s` : 'not on this machine');

async function redisInfo(redis: Redis): Promise<{ usedMemory: number; cpuSeconds: number }> {
  const [memory, cpu] = await Promise.all([redis.info('memory'), redis.info('cpu')]);
  const field = (text: string, name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1] ?? NaN);
  return { usedMemory: field(memory, 'used_memory'), cpuSeconds: field(cpu, 'used_cpu_user') + field(cpu, 'used_cpu_sys') };
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const title = `Full rebuild of the read models from ${n(EVENTS)} events`;
  const pgUrl = new URL(testPostgresUrl());
  const redisUrl = new URL(testRedisUrl());
  if (!(await canConnect(pgUrl.hostname || '127.0.0.1', Number(pgUrl.port || 5432)))) {
    return { title, markdown: `Command: \`${COMMAND}\`. SKIPPED: PostgreSQL (cannot reach ${pgUrl.host})` };
  }
  if (!(await canConnect(redisUrl.hostname || '127.0.0.1', Number(redisUrl.port || 6379)))) {
    return { title, markdown: `Command: \`${COMMAND}\`. SKIPPED: Redis (cannot reach ${redisUrl.host})` };
  }
  const { schema, marker, reused } = await ensureSeeded(EVENTS);
  if (process.env.BENCH_REBUILD_SEED_ONLY === '1') return { title, markdown: `Seeded ${n(marker.events)} events into ${DATABASE}.${schema} (${reused ? 'reused' : 'this run'}).` };

  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const root = `bench:rebuild:${randomUUID()}`;
  // Interrupted (Ctrl-C, kill): stop the rebuild; once it has exited, `finally` removes its keys
  // from the shared Redis, then the process ends.
  let stopChild = () => {};
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    stopChild();
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const floor = await fasterOfTwo(() => readFloor(schema));
    const before = await redisInfo(redis);
    const loadBefore = loadavg();
    const result = await runChild(schema, root, (kill) => (stopChild = kill));
    const loadAfter = loadavg();
    const after = await redisInfo(redis);
    const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');
    const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');
    const cores = availableParallelism();
    const redisSeconds = after.cpuSeconds - before.cpuSeconds;
    const least = (result.cpuSeconds + (Number.isFinite(result.postgresSeconds) ? result.postgresSeconds : 0) + redisSeconds) / cores;
    const mix = Object.entries(marker.mix)
      .sort((a, b) => b[1] - a[1])
      .map(([type, count]) => `${type} ${n(count)}`)
      .join(', ');
    const lines = [
      `Command: \`${COMMAND}\` (\`BENCH_REBUILD_EVENTS=1000000\` for a quicker run${PLAIN ? '; `BENCH_REBUILD_PLAIN=1`: this run without personal-data encryption' : ''}). The admin rebuild path (\`createProjectionRuntime().runRebuild()\`: catch-up of a fresh Redis keyspace from position 0, then the switch of readers) in its own process, reading the PostgreSQL event store (\`${DATABASE}\`, schema \`${schema}\`) with the production defaults${PLAIN ? ', personal fields in clear' : ': personal fields sealed with their member\'s key (`member_keys` beside the events), read through `openPersonalDataEventStore` with its key cache'}.`,
      '',
      '| figure | value | limit | |',
      '|---|---:|---:|---|',
      `| events projected | ${n(result.events)} | | |`,
      `| rebuild time | ${result.seconds.toFixed(1)} s | < ${TARGET_SECONDS} s | ${ok(result.seconds < TARGET_SECONDS)} |`,
      `| of it, the search index built from the final rows (after the last event is stored, before readers are switched) | ${result.indexSeconds === null ? 'not logged' : `${result.indexSeconds.toFixed(1)} s`} | | |`,
      `| throughput | ${n(result.events / result.seconds)} events/s | > ${n(EVENTS / TARGET_SECONDS)} events/s | ${ok(result.events / result.seconds > EVENTS / TARGET_SECONDS)} |`,
      `| PostgreSQL's read floor: the same ${n(floor.rows)} rows in pages of ${n(FLOOR_PAGE)}, nothing done per row (same run, just before; the faster of two reads) | ${floor.seconds.toFixed(1)} s | | |`,
      `| of the floor, CPU of the reading client / of PostgreSQL's processes | ${floor.clientSeconds.toFixed(1)} s / ${cpuText(floor.postgresSeconds)} | | |`,
      `| rebuild time / read floor | ${(result.seconds / floor.seconds).toFixed(2)}× | ≤ ${FLOOR_TARGET}× | ${ok(result.seconds / floor.seconds <= FLOOR_TARGET)} |`,
      `| Redis CPU per event | ${((redisSeconds / result.events) * 1e6).toFixed(1)} µs | | |`,
      `| peak RSS of the rebuild process (VmHWM) | ${gib(result.peakRssBytes)} | < 4 GiB | ${ok(result.peakRssBytes < TARGET_RSS)} |`,
      `| CPU time of the rebuild process | ${result.cpuSeconds.toFixed(1)} s | | |`,
      `| of it, the kernel's; minor page faults (memory touched for the first time) | ${result.systemSeconds.toFixed(1)} s; ${result.minorFaults.toLocaleString('en-US')} | | |`,
      `| Redis CPU time during the rebuild (whole server, shared) | ${redisSeconds.toFixed(1)} s | | |`,
      `| PostgreSQL's CPU time during the rebuild (its processes on this machine) | ${cpuText(result.postgresSeconds)} | | |`,
      `| CPU of all ${cores} cores during the rebuild (every process on the machine) | ${result.machineSeconds.toFixed(1)} s of ${(cores * result.seconds).toFixed(1)} s (${((result.machineSeconds / (cores * result.seconds)) * 100).toFixed(0)}% busy) | | |`,
      `| the least rebuild time ${cores} cores allow for the CPU of the rebuild process, PostgreSQL and Redis together (their sum / ${cores}) | ${least.toFixed(1)} s, ${(least / floor.seconds).toFixed(2)}× the floor | | ${least / floor.seconds <= FLOOR_TARGET ? `≤ ${FLOOR_TARGET}×: within reach by overlap` : `> ${FLOOR_TARGET}×: out of reach without less CPU`} |`,
      `| Redis used_memory after (the whole server's, not the process's) | ${gib(after.usedMemory)} (${after.usedMemory >= before.usedMemory ? '+' : '−'}${gib(Math.abs(after.usedMemory - before.usedMemory))} since the start; other clients' keys come and go) | | |`,
      '',
      `Load average (1/5/15 min) ${load(loadBefore)} before, ${load(loadAfter)} after (2 cores shared with other work). ${n(result.batches)} rebuild progress updates (one per stored batch).`,
      '',
      `Events: ${n(marker.events)} from \`generateEvents\` (activity ${ACTIVITY}, ${n(marker.mix.UserRegistered ?? 0)} members) as the site records them: each registration preceded by its \`EmailReserved\`, each claim followed by the reconciler's \`PassReservationConfirmed\`, and ${n(CONCURRENT_USERS)} members active at a time, so their events interleave in the global order. Mix: ${mix}. ${n(marker.streams)} streams. Seeded by COPY in ${marker.seconds.toFixed(0)} s ${reused ? '(an earlier run; reused)' : '(this run)'}; \`BENCH_REBUILD_RESEED=1\` seeds again.`,
    ];
    return { title, markdown: lines.join('\n') };
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    await deleteKeysUnder(redis, root);
    redis.disconnect();
    if (interrupted) process.exit(130);
  }
}

if (process.env.BENCH_REBUILD_CHILD === '1') {
  await child();
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { title, markdown } = await run();
  process.stdout.write(`## ${title}\n\n${markdown}\n`);
}
