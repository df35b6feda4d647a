/**
 * The admin's time machine on the standalone process with 200,000 members (BENCH_MEMBERS=1000000
 * on request): a replay of every event (the latest moment) and one to the middle of the history,
 * each into a fresh in-memory keyspace through POST /api/admin/replays, timed from the request
 * until GET /api/admin/replays/{id} says ready. Targets: the latest moment within 1.2× the store's
 * read floor of the same events, and the memory the replay adds to the process no more than the
 * first start's peak (both measured in the same run, just before); the middle moment replays
 * only the events up to it.
 *
 *   node --import tsx bench/time-machine.ts        (BENCH_MEMBERS=20000 for a quick run)
 *
 * The PGlite data directory is cold-start's (bench/.cache, seeded once per member count).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { positionToString } from '@pass/events';
import { readFloor, seededDirectory, timedStart, type Start } from './cold-start';
import { fasterOfTwo, FLOOR_PAGE } from './read-floor';

export const COMMAND = 'node --import tsx bench/time-machine.ts';
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 200_000);
const FLOOR_TARGET = 1.2;
/** Fixed: the first run registers the admin in the kept directory, and later runs sign in with it. */
const ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-pass' };

/** The position (as /api/admin/projections shows it) of the event at `offset` in `$all` order. */
async function positionAt(dataDir: string, offset: number): Promise<string> {
  const db = await PGlite.create({ dataDir: join(dataDir, 'events') });
  try {
    const { rows } = await db.query<{ tx: string; global_position: string | number }>(
      'SELECT transaction_id::text AS tx, global_position FROM event_store.events ORDER BY transaction_id, global_position OFFSET $1 LIMIT 1',
      [offset],
    );
    return positionToString({ commit: BigInt(rows[0]!.tx), prepare: BigInt(rows[0]!.global_position) });
  } finally {
    await db.close();
  }
}

const residentBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

interface Replayed {
  seconds: number;
  events: number;
  /** The process's resident memory before the request and its highest sample (every 50 ms) until ready. */
  rssBefore: number;
  rssPeak: number;
  /** GET /api/main-data asked in a loop while the replay ran: how long the slowest answers took. */
  reads: { count: number; p99: number; max: number };
}

/** Asks `url` in a loop until `running()` turns false; answers each request's milliseconds. */
async function readsMeanwhile(url: string, running: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (running()) {
    const started = performance.now();
    await (await fetch(url)).arrayBuffer();
    times.push(performance.now() - started);
    await new Promise((done) => setTimeout(done, 20));
  }
  return times;
}

/** Asks for a replay to `position` as the admin and waits for it, sampling the process's memory. */
async function replay(url: string, cookie: string, pid: number, position: string): Promise<Replayed> {
  const headers = { cookie, 'content-type': 'application/json' };
  const rssBefore = residentBytes(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, residentBytes(pid))), 50);
  let running = true;
  const reads = readsMeanwhile(`${url}/api/main-data`, () => running);
  const started = performance.now();
  try {
    const asked = await fetch(`${url}/api/admin/replays`, { method: 'POST', headers, body: JSON.stringify({ position }) });
    if (asked.status !== 202) throw new Error(`replay refused: ${asked.status} ${await asked.text()}`);
    const { id } = (await asked.json()) as { id: string };
    for (;;) {
      const state = (await (await fetch(`${url}/api/admin/replays/${id}`, { headers })).json()) as { status: string; events: number };
      if (state.status === 'failed') throw new Error(`replay ${id} failed`);
      if (state.status === 'ready') {
        const seconds = (performance.now() - started) / 1000;
        running = false;
        const times = (await reads).sort((a, b) => a - b);
        await fetch(`${url}/api/admin/replays/${id}`, { method: 'DELETE', headers });
        const p99 = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? NaN;
        return { seconds, events: state.events, rssBefore, rssPeak, reads: { count: times.length, p99, max: times.at(-1) ?? NaN } };
      }
      await new Promise((done) => setTimeout(done, 50));
    }
  } finally {
    running = false;
    clearInterval(sampler);
  }
}

interface Figures {
  events: number;
  floor: { seconds: number; rows: number };
  firstStart: Omit<Start, 'service'>;
  latest: Replayed;
  middle: Replayed & { asked: number };
  load: string;
}

async function measure(): Promise<Figures> {
  const { dir, events } = await seededDirectory(MEMBERS);
  process.stderr.write(`time-machine: ${events.toLocaleString('en-US')} events for ${MEMBERS.toLocaleString('en-US')} members in ${dir}\n`);
  const floor = await fasterOfTwo(() => readFloor(dir));
  const [last, middle] = [await positionAt(dir, events - 1), await positionAt(dir, Math.floor(events / 2) - 1)];
  const start = await timedStart(dir, `bench-secret-${randomUUID()}`, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  const { service, ...firstStart } = start;
  try {
    const login = await fetch(`${service.url}/api/admin-login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    if (login.status !== 200) throw new Error(`admin login: ${login.status}`);
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const pid = service.child.pid!;
    const latest = await replay(service.url, cookie, pid, last);
    process.stderr.write(`time-machine: latest moment in ${latest.seconds.toFixed(1)} s\n`);
    const half = await replay(service.url, cookie, pid, middle);
    return { events, floor, firstStart, latest, middle: { ...half, asked: Math.floor(events / 2) }, load: loadavg().map((l) => l.toFixed(2)).join(' / ') };
  } catch (error) {
    process.stderr.write(`time-machine: the process's last lines:\n${[...service.logs.slice(-15), ...service.stderr.slice(-20)].join('\n')}\n`);
    throw error;
  } finally {
    await service.stop('SIGTERM');
  }
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const f = await measure();
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  const ratio = f.latest.seconds / f.floor.seconds;
  const ok = (met: boolean) => (met ? 'ok' : '**not met**');
  const markdown = [
    `Command: \`${COMMAND}\` (BENCH_MEMBERS=${n(MEMBERS)}). The standalone process on cold-start's PGlite directory (${n(f.events)} events), started without a snapshot; once ready, the admin asks POST /api/admin/replays for the position of the last event, then for the position of the middle one, and each is timed from the request until GET /api/admin/replays/{id} answers ready (polled every 50 ms), its memory sampled every 50 ms.`,
    '',
    '| Figure | Value | Limit | |',
    '|---|---:|---|---|',
    `| Replay to the latest moment (${n(f.latest.events)} events, ${n(f.latest.events / f.latest.seconds)} events/s) | ${f.latest.seconds.toFixed(1)} s | | |`,
    `| Read floor: PGlite handing back the same ${n(f.floor.rows)} rows in pages of ${n(FLOOR_PAGE)}, nothing done per row (same run, before the start; the faster of two reads) | ${f.floor.seconds.toFixed(1)} s | | |`,
    `| replay / read floor | ${ratio.toFixed(2)}× | ≤ ${FLOOR_TARGET}× | ${ok(ratio <= FLOOR_TARGET)} |`,
    `| Memory the replay added: the process's peak during it less its resident memory before (${gib(f.latest.rssBefore)}) | ${gib(f.latest.rssPeak - f.latest.rssBefore)} | ≤ the first start's peak, ${gib(f.firstStart.peakRssBytes)} (same run) | ${ok(f.latest.rssPeak - f.latest.rssBefore <= f.firstStart.peakRssBytes)} |`,
    `| The process's peak during the replay (its live read models included) | ${gib(f.latest.rssPeak)} | | |`,
    `| Replay to the middle: events replayed / events up to that position | ${n(f.middle.events)} / ${n(f.middle.asked)} | equal | ${ok(f.middle.events === f.middle.asked)} |`,
    `| Replay to the middle: time (${(f.middle.seconds / f.latest.seconds).toFixed(2)}× the latest's) | ${f.middle.seconds.toFixed(1)} s | | |`,
    `| GET /api/main-data asked in a loop during the latest replay (${n(f.latest.reads.count)} requests): p99 / slowest | ${f.latest.reads.p99.toFixed(0)} / ${f.latest.reads.max.toFixed(0)} ms | | |`,
    `| First start without a snapshot (for scale) | ${f.firstStart.readySeconds.toFixed(1)} s | | |`,
    '',
    `Load average after the run: ${f.load} (the machine is shared).`,
  ].join('\n');
  return { title: `Time machine: replays at ${n(MEMBERS)} members`, markdown };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { markdown } = await run();
  process.stdout.write(`${markdown}\n`);
}
