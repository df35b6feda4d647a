/**
 * Event store benchmark: append throughput through the port next to plain INSERTs into an
 * equivalent table of the same database (same run, same concurrency, same durability settings),
 * and subscription delivery latency (append call → handler).
 *
 *   node --import tsx bench/event-store.ts
 *
 * PostgreSQL is measured when TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test)
 * is reachable, in a fresh schema dropped afterwards.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { openPostgresEventStore } from '@pass/events/store';
import type { SqlClient } from '../events/src/event-store/sql/client';
import { eventsTableSql } from '../events/src/event-store/sql/schema';
import type { SqlEventStore } from '../events/src/event-store/sql/store';
import { canConnect, dropPostgresSchema, testPostgresUrl } from '@pass/events/test-support';

export const COMMAND = 'node --import tsx bench/event-store.ts';
// While iterating: BENCH_ROUNDS=3 BENCH_STORES=pglite BENCH_WRITERS=1 BENCH_LATENCY=0 (400 appends per round).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const APPENDS = 400 * ROUNDS;
const WARMUP = 200;
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',');
const WRITERS = (process.env.BENCH_WRITERS ?? '1,8').split(',').map(Number);
const LATENCY = process.env.BENCH_LATENCY !== '0';
const LATENCY_SAMPLES = 300;
const PORT_VS_RAW_LIMIT = 0.7;
const P99_LIMIT_MS = 20;

interface Figures {
  store: string;
  rows: { writers: number; port: number; raw: number }[];
  latency: { p50: number; p99: number; path: string };
}

const payload = (i: number) => ({ data: { userId: randomUUID(), points: i % 7, note: 'bench event with a typical small payload' }, metadata: { correlationId: randomUUID(), actor: { kind: 'user' }, schemaVersion: 1 } });

/** Runs `total` operations split over `writers` sequential loops; returns operations and seconds. */
async function timed(writers: number, total: number, op: (writer: number, i: number) => Promise<unknown>): Promise<{ ops: number; seconds: number }> {
  const perWriter = Math.ceil(total / writers);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) await op(w, i);
    }),
  );
  return { ops: perWriter * writers, seconds: (performance.now() - started) / 1000 };
}

/**
 * The events table's shape (same columns, defaults, unique indexes and $all index), made by the
 * store's own schema code, without the append function: what a hand-written INSERT costs.
 */
export const rawTableSql = (table: string): string[] => eventsTableSql(table, 'bench_raw_events_order');

async function createRawTable(client: SqlClient, table: string) {
  for (const statement of rawTableSql(table)) await client.query(statement);
}

/**
 * Port and raw rates at the same concurrency. They run in alternating rounds, so a neighbour
 * loading the machine for a while weighs on both alike.
 */
async function throughput(store: EventStore, client: SqlClient, rawTable: string, writers: number) {
  const run = `w${writers}-${randomUUID().slice(0, 8)}`;
  const rawInsert = `INSERT INTO ${rawTable} (event_id, stream_id, revision, type, data, metadata) VALUES ($1, $2, $3, $4, $5, $6)`;
  const next = new Map<string, number>();
  const revision = (streamId: string) => {
    const r = next.get(streamId) ?? 0;
    next.set(streamId, r + 1);
    return r;
  };
  const raw = (w: number, i: number) => {
    const p = payload(i);
    const streamId = `${run}-raw-${w}`;
    const params = [randomUUID(), streamId, String(revision(streamId)), 'BenchHappened', JSON.stringify(p.data), JSON.stringify(p.metadata)];
    // Where the client has a prepared-statement path (both stores), the raw INSERT takes it too, as the
    // port's append does: the comparison is the database's best plain INSERT, not a slower call.
    return client.queryPrepared ? client.queryPrepared(`bench_raw_insert_${writers}`, rawInsert, params) : client.query(rawInsert, params);
  };
  // Like a command handler: each append states the revision it decided on.
  const port = (w: number, i: number) => {
    const streamId = `${run}-port-${w}`;
    const r = revision(streamId);
    return store.append(streamId, [{ id: randomUUID(), type: 'BenchHappened', ...payload(i) }], r === 0 ? 'no_stream' : r - 1);
  };
  // Warm both paths (plans, caches) before measuring.
  await timed(writers, WARMUP, raw);
  await timed(writers, WARMUP, port);
  const totals = { raw: { ops: 0, seconds: 0 }, port: { ops: 0, seconds: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['raw', 'port'] as const) : (['port', 'raw'] as const);
    for (const which of order) {
      const t = await timed(writers, APPENDS / ROUNDS, which === 'raw' ? raw : port);
      totals[which].ops += t.ops;
      totals[which].seconds += t.seconds;
    }
  }
  return { writers, port: totals.port.ops / totals.port.seconds, raw: totals.raw.ops / totals.raw.seconds };
}

/** Append call → handler, one append at a time, measured on `subscriber` (may be another instance). */
async function deliveryLatency(writer: EventStore, subscriber: EventStore): Promise<{ p50: number; p99: number }> {
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let received: (() => void) | undefined;
  const after = await subscriber.headPosition();
  const subscription = subscriber.subscribeToAll({
    after,
    onEvents: (batch) => {
      const now = performance.now();
      for (const e of batch) {
        const t = sent.get(e.id);
        if (t !== undefined) latencies.push(now - t);
      }
      received?.();
    },
  });
  const streamId = `latency-${randomUUID()}`;
  try {
    for (let i = 0; i < LATENCY_SAMPLES + 20; i++) {
      const id = randomUUID();
      const arrived = new Promise<void>((done) => (received = done));
      sent.set(id, performance.now());
      await writer.append(streamId, [{ id, type: 'BenchHappened', ...payload(i) }]);
      await Promise.race([arrived, new Promise((done) => setTimeout(done, 2_000))]);
      await new Promise((done) => setTimeout(done, 2));
    }
  } finally {
    await subscription.stop();
  }
  const measured = latencies.slice(20).sort((a, b) => a - b);
  const pct = (p: number) => measured[Math.min(measured.length - 1, Math.ceil((p / 100) * measured.length) - 1)] ?? Number.NaN;
  return { p50: pct(50), p99: pct(99) };
}

async function benchPglite(): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pass-bench-pglite-'));
  const store = await openPgliteEventStore({ dataDir });
  try {
    await createRawTable(store.client, 'bench_raw_events');
    const rows = [];
    for (const writers of WRITERS) rows.push(await throughput(store, store.client, 'bench_raw_events', writers));
    const latency = LATENCY ? await deliveryLatency(store, store) : { p50: Number.NaN, p99: Number.NaN };
    return { store: 'PGlite (directory)', rows, latency: { ...latency, path: 'same process (in-process wake-up)' } };
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchPostgres(url: string): Promise<Figures> {
  const schema = `es_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const store: SqlEventStore = await openPostgresEventStore({ connectionString: url, schema, poolSize: 10 });
  const subscriber = await openPostgresEventStore({ connectionString: url, schema, poolSize: 2 });
  try {
    const rawTable = `"${schema}".bench_raw_events`;
    await createRawTable(store.client, rawTable);
    const rows = [];
    for (const writers of WRITERS) rows.push(await throughput(store, store.client, rawTable, writers));
    // The subscriber is a second store instance: woken by LISTEN/NOTIFY, as in another process.
    const latency = LATENCY ? await deliveryLatency(store, subscriber) : { p50: Number.NaN, p99: Number.NaN };
    return { store: 'PostgreSQL', rows, latency: { ...latency, path: 'other instance (LISTEN/NOTIFY)' } };
  } finally {
    await subscriber.close();
    await store.close();
    await dropPostgresSchema(url, schema);
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(1)} ms`;
const verdict = (ok: boolean) => (ok ? 'ok' : '**below target**');

export async function run(): Promise<{ title: string; markdown: string }> {
  const results: Figures[] = STORES.includes('pglite') ? [await benchPglite()] : [];
  const url = testPostgresUrl();
  const { hostname, port } = new URL(url);
  let pgNote: string | undefined;
  if (STORES.includes('postgres')) {
    pgNote = (await canConnect(hostname || '127.0.0.1', Number(port || 5432))) ? undefined : `PostgreSQL not measured: cannot reach ${hostname}:${port || 5432}.`;
    if (!pgNote) results.push(await benchPostgres(url));
  }

  const lines = [
    `Command: \`${COMMAND}\` (${APPENDS.toLocaleString('en-US')} single-event appends per figure in ${ROUNDS} rounds alternating with the raw INSERTs into a table with the same columns and indexes (both through a named prepared statement; the raw INSERT at 8 writers is 8 independent INSERTs, while the port sends what is queued together, so PGlite's port can beat it there), after ${WARMUP} warm-up; durability as configured: PGlite writes each commit's WAL to the file before acknowledging; PostgreSQL with the server's own settings).`,
    '',
    '| Store | Writers | Port append (events/s) | Raw INSERT (events/s) | Port / raw | Limit |',
    '|---|---:|---:|---:|---:|---|',
  ];
  for (const r of results) {
    for (const row of r.rows) {
      const ratio = row.port / row.raw;
      lines.push(`| ${r.store} | ${row.writers} | ${fmt(row.port)} | ${fmt(row.raw)} | ${Math.round(ratio * 100)}% | ≥ ${PORT_VS_RAW_LIMIT * 100}% ${verdict(ratio >= PORT_VS_RAW_LIMIT)} |`);
    }
  }
  lines.push('', '| Store | Subscriber | Delivery p50 | Delivery p99 | Limit |', '|---|---|---:|---:|---|');
  for (const r of results) {
    lines.push(`| ${r.store} | ${r.latency.path} | ${ms(r.latency.p50)} | ${ms(r.latency.p99)} | p99 < ${P99_LIMIT_MS} ms ${verdict(r.latency.p99 < P99_LIMIT_MS)} |`);
  }
  lines.push(
    '',
    `Delivery: from the append call to the subscription handler, ${LATENCY_SAMPLES} appends one at a time. Load average after the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')} (the machine is shared).`,
  );
  if (pgNote) lines.push('', pgNote);
  return { title: 'Event store', markdown: lines.join('\n') };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { markdown } = await run();
  process.stdout.write(`${markdown}\n`);
}
