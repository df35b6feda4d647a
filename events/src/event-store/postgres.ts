/**
 * The PostgreSQL event store: the same schema and queries as the embedded store (sql/) over
 * a connection pool, plus LISTEN/NOTIFY so subscriptions in other processes wake as soon as an
 * append is acknowledged. Appends queued while another is in flight go out as one transaction
 * (group commit, group-commit.ts).
 *
 * Only a process with a subscription LISTENs (the projector): PostgreSQL wakes every listening
 * backend on every NOTIFY, and the command and query sides have nothing to wake.
 *
 * The NOTIFY is sent by the appending process after the commit, not inside the append
 * function: a transaction that notifies takes a cluster-wide lock through its commit, which
 * would serialise concurrent appends (no group commit). Notifications are coalesced, so a burst
 * of appends costs one NOTIFY in flight at a time.
 */
import { isAscii } from 'node:buffer';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { EventStoreUnavailableError } from './port';
import type { EventStoreLogger, SqlClient } from './sql/client';
import { isConnectionFailure } from './sql/errors';
import { assertSchemaName, quoteIdent } from './sql/identifiers';
import { setupSchema } from './sql/schema';
import { sqlFile } from './sql/sql-file';
import { SqlEventStore } from './sql/store';

const sql = sqlFile(new URL('./postgres.sql', import.meta.url));

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** Schema holding the store's tables; created when missing. Default `event_store`. */
  schema?: string;
  /** Connections used for appends and reads (one more is kept for LISTEN). Default 10. */
  poolSize?: number;
  logger?: EventStoreLogger;
  /** Fallback poll interval of subscriptions when no notification arrives. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Minimum spacing of NOTIFYs under load (the first after a quiet spell goes at once). Default 4 ms. */
  notifyIntervalMs?: number;
  /**
   * A caught-up subscription woken by a NOTIFY waits this long before reading (SqlEventStore's
   * wakeGatherMs). Default 3 ms: at a few hundred appends a second each read then brings several
   * events instead of one, for a few ms more between an append and its projection.
   */
  wakeGatherMs?: number;
  /** How long to wait for a connection before failing with EventStoreUnavailableError. Default 5000 ms. */
  connectTimeoutMs?: number;
  /**
   * How long to wait for a query's answer on an open connection before failing with
   * EventStoreUnavailableError (the connection is then dropped). Without it a network partition
   * hangs a request until the operating system gives up on the connection (minutes). Default 10000 ms.
   */
  queryTimeoutMs?: number;
}

/**
 * `COPY (<select>) TO STDOUT` on a pooled connection, its whole output as text. The driver's
 * query timeout does not cover a copy stream: a copy with no data for `timeoutMs` drops its
 * connection and fails as a timed-out query does (a connection failure).
 */
async function copyOut(pool: pg.Pool, select: string, timeoutMs: number): Promise<string> {
  const connection = await pool.connect();
  const chunks: Buffer[] = [];
  const stream = connection.query(copyTo(sql('copy_out', { select })));
  let timer: NodeJS.Timeout | undefined;
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stream.destroy(new Error('Query read timeout (COPY)')), timeoutMs);
  };
  try {
    idle();
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      idle();
    }
  } catch (error) {
    // A copy that failed midway leaves the connection in an unknown state: it is dropped.
    connection.release(error as Error);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  connection.release();
  const text = Buffer.concat(chunks);
  // Most pages are ASCII (personal fields are sealed as base64): read as Latin-1 they become the
  // same string, copied byte for byte, where the UTF-8 decoder took about a second of a
  // 1,000,000-event rebuild (docs/benchmarks.md, "Full rebuild").
  return text.toString(isAscii(text) ? 'latin1' : 'utf8');
}

export async function openPostgresEventStore(options: PostgresEventStoreOptions): Promise<SqlEventStore> {
  const schema = options.schema ?? 'event_store';
  assertSchemaName(schema);
  const logger = options.logger;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const channel = `es_${schema}`.slice(0, 63);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
    query_timeout: options.queryTimeoutMs ?? 10_000,
    keepAlive: true,
    // Named, so an operator can tell the store's connections apart in pg_stat_activity.
    application_name: `event-store:${schema}`,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', (error) => logger?.warn({ err: error }, 'postgres event store: idle connection lost'));

  try {
    const setupClient = await pool.connect();
    try {
      await setupSchema((ddl) => setupClient.query(ddl), schema);
    } finally {
      setupClient.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (isConnectionFailure(error)) {
      throw new EventStoreUnavailableError(`PostgreSQL event store unavailable: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  }

  let closed = false;
  let listener: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectDelay = 0;

  const client: SqlClient = {
    // A named statement is parsed once per pooled connection (node-postgres keeps track of which
    // connection has prepared it), and planned once PostgreSQL settles on a generic plan.
    query: <R,>(text: string, params?: unknown[], name?: string) =>
      (name ? pool.query({ name, text, values: params ?? [] }) : pool.query(text, params)) as unknown as Promise<{ rows: R[] }>,
    queryPrepared: async (name, text, values) => (await pool.query({ name, text, values, rowMode: 'array' })).rows[0] as (string | null)[] | undefined,
    copyOut: (select) => copyOut(pool, select, options.queryTimeoutMs ?? 10_000),
  };
  const store = new SqlEventStore({
    kind: 'postgres',
    client,
    schema,
    // Several processes may write: appends queued meanwhile go out as one transaction.
    groupCommit: true,
    ...(logger ? { logger } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    wakeGatherMs: options.wakeGatherMs ?? 3,
    // Only a process that subscribes listens: every listening backend is woken by every NOTIFY.
    onFirstSubscription: () => void listen(),
    release: async () => {
      closed = true;
      clearTimeout(reconnectTimer);
      clearTimeout(notifyTimer);
      await listener?.end().catch(() => undefined);
      await pool.end();
    },
  });

  // A dedicated connection for LISTEN, opened with the first subscription; if it drops,
  // subscriptions keep polling while it reconnects.
  const listen = async () => {
    if (closed) return;
    const client = new pg.Client({
      connectionString: options.connectionString,
      connectionTimeoutMillis: connectTimeoutMs,
      application_name: `event-store-listen:${schema}`,
    });
    const lost = (error?: unknown) => {
      if (listener !== client) return;
      listener = undefined;
      void client.end().catch(() => undefined);
      if (closed) return;
      reconnectDelay = Math.min(Math.max(reconnectDelay * 2, 200), 10_000);
      logger?.warn({ err: error, retryInMs: reconnectDelay }, 'postgres event store: LISTEN connection lost, reconnecting');
      reconnectTimer = setTimeout(() => void listen(), reconnectDelay);
      // Catch up on anything appended while we were not listening.
      store.wake();
    };
    listener = client;
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => store.wake());
    try {
      await client.connect();
      await client.query(sql('listen', { channel: quoteIdent(channel) }));
      reconnectDelay = 0;
      if (closed) await client.end();
      // Appends acknowledged before the LISTEN took effect were notified to no one.
      else store.wake();
    } catch (error) {
      lost(error);
    }
  };

  // At most one NOTIFY per interval: the first append after a quiet spell notifies at once, a
  // burst costs one more at the end of each interval instead of one per append.
  const notifyIntervalMs = options.notifyIntervalMs ?? 4;
  let pending = false;
  let inFlight = false;
  let lastSent = 0;
  let notifyTimer: NodeJS.Timeout | undefined;
  const scheduleNotify = () => {
    if (closed || inFlight || notifyTimer || !pending) return;
    const wait = lastSent + notifyIntervalMs - performance.now();
    if (wait > 0) {
      notifyTimer = setTimeout(() => {
        notifyTimer = undefined;
        scheduleNotify();
      }, wait);
      return;
    }
    pending = false;
    inFlight = true;
    lastSent = performance.now();
    // The LISTEN connection is idle otherwise; the pool's in a process that does not listen, or
    // while it reconnects.
    (listener ?? pool)
      .query({ name: 'es_notify', text: sql('notify'), values: [channel, ''] })
      .catch((error: unknown) => {
        // Subscribers still find the events by their fallback poll.
        if (!closed) logger?.warn({ err: error }, 'postgres event store: NOTIFY failed');
      })
      .finally(() => {
        inFlight = false;
        scheduleNotify();
      });
  };
  store.onAppended(() => {
    pending = true;
    scheduleNotify();
  });

  logger?.debug({ schema, poolSize: options.poolSize ?? 10 }, 'postgres event store open');
  return store;
}
