/**
 * Standalone cold start with 1,000,000 members: seconds from starting
 * the process, as `npm start` runs it, until `/readyz` answers 200, on a PGlite data directory
 * holding the events the command side writes for a million members.
 *
 *   node --import tsx bench/cold-start.ts          (BENCH_MEMBERS=100000 for a quicker run)
 *
 * The directory is filled straight into the store's table with COPY (appending millions of
 * events through the port would take longer than the benchmark), with the streams, revisions
 * and metadata the command side gives them: per member `EmailReserved` and `UserRegistered`,
 * and the generator's realistic activity (free points, purchases, claims with their
 * reservation and confirmation on `passes-pool`, certificates, chat, admin actions).
 * The process is started twice: first without snapshots (it replays every event into the read
 * models, and the whole passes-pool stream on the command side, as after a change of the
 * projection code), then, after a graceful stop that writes the read-model snapshot, again: the
 * restart loads the snapshots and catches up from their checkpoints. Both are reported;
 * the limit is the restart's. The seeded directory is kept in bench/.cache between runs.
 * BENCH_COLD_CPU_PROF=<dir> starts the standalone process with --cpu-prof into that folder;
 * BENCH_COLD_NODE_FLAGS='--flag …' with other node flags to try.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { emailStreams, eventSchemaVersions, type DomainEvent } from '@pass/events';
import { defaultKeysDir, EMAIL_STREAM_KEY_ID, FileKeyStore, installationKey } from '@pass/events/personal-data';
import { setupSchema } from '../events/src/event-store/sql/schema';
import { metricValue, spawnStandalone, type SpawnedService } from '@pass/infra/test-support';
import { streamOf } from '@pass/projector/test-support';
import { generateEvents } from '@pass/projector/test-support';
import { fasterOfTwo, FLOOR_PAGE, readAllPages } from './read-floor';

export const COMMAND = 'node --import tsx bench/cold-start.ts';
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1_000_000);
const LIMIT_SECONDS = 60;
const COPY_ROWS = 200_000;
/** Target: the first start within this many times the store's read floor (read-floor.ts). */
const FLOOR_TARGET = 1.5;
/** Bump when the seed changes, so a kept directory is seeded again. */
const SEED_VERSION = 2;

/** The generator's events plus what the command side writes beside them. */
function* commandSideEvents(members: number): Generator<DomainEvent> {
  for (const event of generateEvents({ users: members, seed: 7, activity: 1 })) {
    if (event.type === 'UserRegistered') {
      yield { type: 'EmailReserved', data: { email: event.data.email, userId: event.data.userId, reservedAt: event.data.registeredAt } };
    }
    yield event;
    if (event.type === 'PassesClaimed') {
      yield {
        type: 'PassReservationConfirmed',
        data: { reservationId: event.data.reservationId, userId: event.data.userId, passes: event.data.passes, confirmedAt: event.data.claimedAt },
      };
    }
  }
}

const csvField = (value: string) => `"${value.replaceAll('"', '""')}"`;

/** Fills `<dataDir>/events` through COPY; answers the number of events. */
export async function seed(dataDir: string, members = MEMBERS): Promise<number> {
  const db = await PGlite.create({ dataDir: join(dataDir, 'events') });
  try {
    await setupSchema((sql) => db.exec(sql), 'event_store');
    // The installation's key for e-mail stream names, where the standalone process looks for it.
    const key = await installationKey(new FileKeyStore(defaultKeysDir(join(dataDir, 'events'))), EMAIL_STREAM_KEY_ID, { create: true });
    const emailStream = emailStreams(key!);
    const revisions = new Map<string, number>();
    const actor = JSON.stringify({ type: 'user', id: 'seed' });
    let rows: string[] = [];
    let total = 0;
    const flush = async () => {
      if (rows.length === 0) return;
      await db.query(`COPY event_store.events (event_id, stream_id, revision, type, data, metadata) FROM '/dev/blob' WITH (FORMAT csv)`, [], {
        blob: new Blob([rows.join('')]),
      });
      total += rows.length;
      rows = [];
    };
    for (const event of commandSideEvents(members)) {
      const stream = event.type === 'EmailReserved' ? emailStream(event.data.email) : streamOf(event);
      const revision = (revisions.get(stream) ?? -1) + 1;
      revisions.set(stream, revision);
      const id = randomUUID();
      const correlationId = randomUUID();
      const occurredAt = Object.values(event.data).find((v): v is string => typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v)) ?? new Date().toISOString();
      const metadata = `{"eventId":"${id}","correlationId":"${correlationId}","causationId":"${correlationId}","actor":${actor},"schemaVersion":${eventSchemaVersions[event.type]},"occurredAt":"${occurredAt}"}`;
      rows.push(`${id},${csvField(stream)},${revision},${event.type},${csvField(JSON.stringify(event.data))},${csvField(metadata)}\n`);
      if (rows.length === COPY_ROWS) await flush();
    }
    await flush();
    return total;
  } finally {
    await db.close();
  }
}

function status(url: string): Promise<number> {
  return new Promise((done) => {
    get(url, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    }).on('error', () => done(0));
  });
}

export function text(url: string): Promise<string> {
  return new Promise((done, fail) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(body));
    }).on('error', fail);
  });
}

/** Peak and current resident memory (VmHWM, VmRSS, bytes) and CPU seconds (user + system) of a live process. */
export function usage(pid: number): { peakRssBytes: number; rssBytes: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => {
    const match = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  };
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { peakRssBytes: kib('VmHWM'), rssBytes: kib('VmRSS'), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/**
 * PGlite's own read rate of the same events (read-floor.ts), on the closed directory before the
 * server opens it (PGlite is one process's). Seconds, including opening the database.
 */
export async function readFloor(dataDir: string): Promise<{ seconds: number; rows: number }> {
  const started = performance.now();
  const db = await PGlite.create({ dataDir: join(dataDir, 'events') });
  try {
    const rows = await readAllPages((sql, params) => db.query(sql, params), 'event_store');
    return { seconds: (performance.now() - started) / 1000, rows };
  } finally {
    await db.close();
  }
}

/** Where the process's memory is once ready, from its own /metrics (prom-client's Node.js series). */
interface MemorySplit {
  /** V8's heap in use (objects the read models and everything else keep). */
  heapUsedBytes: number;
  /** Memory outside V8's heap: buffers, and PGlite's WebAssembly memory (it never shrinks). */
  externalBytes: number;
}

function memorySplit(metrics: string): MemorySplit {
  return { heapUsedBytes: metricValue(metrics, 'nodejs_heap_size_used_bytes'), externalBytes: metricValue(metrics, 'nodejs_external_memory_bytes') };
}

export interface Start {
  readySeconds: number;
  peakRssBytes: number;
  rssBytes: number;
  cpuSeconds: number;
  memory: MemorySplit;
  mainData: string;
  restored: boolean;
  service: SpawnedService;
}

/** Starts the standalone process on `dir` (with `env` added) and times it until /readyz answers 200. */
export async function timedStart(dir: string, secret: string, env: Record<string, string> = {}): Promise<Start> {
  const started = performance.now();
  const profile = process.env.BENCH_COLD_CPU_PROF;
  const tried = (process.env.BENCH_COLD_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const service = await spawnStandalone({ ...env, DATA_DIR: dir, WEB_DIST_DIR: join(dir, 'no-web-build'), SESSION_SECRET: secret }, 20 * 60_000, {
    nodeFlags: [...tried, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
  });
  while ((await status(`${service.url}/readyz`)) !== 200) {
    if (performance.now() - started > 30 * 60_000) throw new Error('not ready after 30 minutes');
    await new Promise((done) => setTimeout(done, 100));
  }
  const readySeconds = (performance.now() - started) / 1000;
  return {
    readySeconds,
    ...usage(service.child.pid!),
    memory: memorySplit(await text(`${service.url}/metrics`)),
    mainData: await text(`${service.url}/api/main-data`),
    restored: service.logs.some((line) => line.includes('read models restored from snapshot')),
    service,
  };
}

interface Figures {
  members: number;
  events: number;
  seedSeconds: number | null;
  floor: { seconds: number; rows: number };
  replay: Omit<Start, 'service'>;
  restart: Omit<Start, 'service'>;
  /** Resident memory of the restarted process once ready (VmRSS). */
  restartRssBytes: number;
  stopSeconds: number;
  snapshotBytes: number;
  sameFigures: boolean;
  load: string;
}

/**
 * The seeded directory is kept under bench/.cache (BENCH_COLD_CACHE=0: a temporary one), so a
 * second run skips the seeding; every run removes the snapshot first, so the first start replays.
 */
export async function seededDirectory(members = MEMBERS): Promise<{ dir: string; events: number; seedSeconds: number | null; temporary: boolean }> {
  const temporary = process.env.BENCH_COLD_CACHE === '0';
  const dir = temporary ? mkdtempSync(join(tmpdir(), 'pass-bench-cold-')) : resolve(import.meta.dirname, '.cache', `cold-start-${members}-v${SEED_VERSION}`);
  const marker = join(dir, 'seeded.json');
  if (!temporary && existsSync(marker)) {
    rmSync(join(dir, 'read-models.snapshot'), { force: true });
    rmSync(join(dir, 'aggregate-snapshots'), { recursive: true, force: true });
    return { dir, events: (JSON.parse(readFileSync(marker, 'utf8')) as { events: number }).events, seedSeconds: null, temporary };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const seeding = performance.now();
  const events = await seed(dir, members);
  const seedSeconds = (performance.now() - seeding) / 1000;
  writeFileSync(marker, JSON.stringify({ events, members }));
  return { dir, events, seedSeconds, temporary };
}

export async function measureColdStart(): Promise<Figures> {
  const { dir, events, seedSeconds, temporary } = await seededDirectory();
  process.stderr.write(`cold-start: ${events.toLocaleString('en-US')} events for ${MEMBERS.toLocaleString('en-US')} members in ${dir}${seedSeconds === null ? ' (seeded earlier)' : ` (seeded in ${seedSeconds.toFixed(0)} s)`}\n`);
  const secret = `bench-secret-${randomUUID()}`;
  const running: SpawnedService[] = [];
  try {
    const floor = await fasterOfTwo(() => readFloor(dir));
    process.stderr.write(`cold-start: read floor ${floor.rows.toLocaleString('en-US')} rows in ${floor.seconds.toFixed(1)} s\n`);
    // First start: no snapshots, every event replayed (read models; the passes-pool stream on the command side).
    const replay = await timedStart(dir, secret);
    running.push(replay.service);
    process.stderr.write(`cold-start: replay start ready in ${replay.readySeconds.toFixed(1)} s\n`);
    const stopping = performance.now();
    await replay.service.stop('SIGTERM');
    const stopSeconds = (performance.now() - stopping) / 1000;
    const snapshotBytes = existsSync(join(dir, 'read-models.snapshot')) ? statSync(join(dir, 'read-models.snapshot')).size : 0;
    // The restart this benchmark is about: the snapshot written at shutdown, then catch-up.
    const restart = await timedStart(dir, secret);
    running.push(restart.service);
    const strip = ({ service: _service, ...rest }: Start) => rest;
    return {
      members: MEMBERS,
      events,
      seedSeconds,
      floor,
      replay: strip(replay),
      restart: strip(restart),
      restartRssBytes: restart.rssBytes,
      stopSeconds,
      snapshotBytes,
      sameFigures: replay.mainData === restart.mainData,
      load: loadavg()
        .map((l) => l.toFixed(2))
        .join(' / '),
    };
  } finally {
    for (const service of running) await service.stop('SIGTERM');
    if (temporary) rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function run(): Promise<{ title: string; markdown: string }> {
  const f = await measureColdStart();
  const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  const members = (JSON.parse(f.restart.mainData) as { members: number }).members;
  const markdown = [
    `Command: \`${COMMAND}\` (BENCH_MEMBERS=${fmt(f.members)}). A PGlite data directory holding ${fmt(f.events)} events for ${fmt(f.members)} registered members (${fmt(members)} of them holding passes), written by COPY${f.seedSeconds === null ? ' in an earlier run (kept in bench/.cache)' : ` in ${f.seedSeconds.toFixed(0)} s`}, not counted. The standalone process is started as \`npm start\` runs it (minus the web build) and timed from its launch until \`/readyz\` answers 200, i.e. its in-memory read models hold every event.`,
    '',
    '| Start | Ready | CPU seconds | Peak memory (RSS) | Limit |',
    '|---|---:|---:|---:|---|',
    `| Restart: read models and the passes-pool state loaded from their snapshots, then caught up | **${f.restart.readySeconds.toFixed(1)} s** | ${f.restart.cpuSeconds.toFixed(0)} | ${gib(f.restart.peakRssBytes)} | ready < ${LIMIT_SECONDS} s ${f.restart.readySeconds < LIMIT_SECONDS && f.restart.restored ? 'ok' : '**not met**'} |`,
    `| First start without a snapshot: every event replayed (${fmt(f.events / f.replay.readySeconds)} events/s) | ${f.replay.readySeconds.toFixed(1)} s | ${f.replay.cpuSeconds.toFixed(0)} | ${gib(f.replay.peakRssBytes)} | ≤ ${FLOOR_TARGET}× the read floor: ${(f.replay.readySeconds / f.floor.seconds).toFixed(2)}× ${f.replay.readySeconds / f.floor.seconds <= FLOOR_TARGET ? 'ok' : '**not met**'}; peak ≤ 2 GiB at 1M ${f.replay.peakRssBytes <= 2 * 2 ** 30 ? 'ok' : '**not met**'} |`,
    `| Read floor: PGlite handing back the same ${fmt(f.floor.rows)} rows in pages of ${fmt(FLOOR_PAGE)}, nothing done per row (same run, just before; the faster of two reads) | ${f.floor.seconds.toFixed(1)} s | | | |`,
    '',
    `Resident memory of the restarted process once ready: ${gib(f.restartRssBytes)} (≤ 1.5 GiB at 1M: ${f.restartRssBytes <= 1.5 * 2 ** 30 ? 'ok' : '**not met**'}); of it, V8's heap in use ${gib(f.restart.memory.heapUsedBytes)} and memory outside it (buffers, PGlite's WebAssembly memory) ${gib(f.restart.memory.externalBytes)}. After the first start: ${gib(f.replay.rssBytes)} resident, heap ${gib(f.replay.memory.heapUsedBytes)}, outside ${gib(f.replay.memory.externalBytes)}.`,
    '',
    `The snapshot (${gib(f.snapshotBytes)}) was written during the graceful stop, which took ${f.stopSeconds.toFixed(1)} s; the restarted process ${f.restart.restored ? 'logged that it restored it' : '**did not restore it**'}, and its /api/main-data ${f.sameFigures ? 'equals' : '**differs from**'} the first start's. Without a valid snapshot (projection code changed, snapshot lost) a start takes the replay figure. Load average after the run: ${f.load} (the machine is shared).`,
  ].join('\n');
  return { title: `Standalone cold start with ${fmt(f.members)} members`, markdown };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { markdown } = await run();
  process.stdout.write(`${markdown}\n`);
}
