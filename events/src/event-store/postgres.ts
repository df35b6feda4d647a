/**
 * The PostgreSQL event store: the same schema and queries as the embedded store (sql/) over
 * a connection pool, plus LISTEN/NOTIFY so subscriptions in other processes wake as soon as an
 * append is acknowledged (postgres-notifications.ts). Appends queued while another is in flight
 * go out as one transaction (group commit, sql/group-commit.ts).
 */
import { isAscii } from 'node:buffer';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { EventStoreUnavailableError } from './port';
import { AppendListener, CoalescedNotify, notificationChannel } from './postgres-notifications';
import type { EventStoreLogger, SqlClient } from './sql/client';
import { isConnectionFailure } from './sql/errors';
import { assertSchemaName } from './sql/identifiers';
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
  // same string, copied byte for byte, far cheaper than the UTF-8 decoder
  // (docs/benchmarks/history/rebuild.md, "ASCII pages read as Latin-1").
  return text.toString(isAscii(text) ? 'latin1' : 'utf8');
}

export async function openPostgresEventStore(options: PostgresEventStoreOptions): Promise<SqlEventStore> {
  const schema = options.schema ?? 'event_store';
  assertSchemaName(schema);
  const logger = options.logger;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const pool = openPool(options, schema, connectTimeoutMs);
  await createSchema(pool, schema);
  const listener = new AppendListener({ connectionString: options.connectionString, connectTimeoutMs, schema, logger }, () => store.wake());
  // The LISTEN connection is idle otherwise; the pool's in a process that does not listen, or
  // while it reconnects.
  const notify = new CoalescedNotify(() => listener.connection ?? pool, notificationChannel(schema), options.notifyIntervalMs ?? 4, logger);
  const store = new SqlEventStore({
    kind: 'postgres',
    client: poolClient(pool, options.queryTimeoutMs ?? 10_000),
    schema,
    // Several processes may write: appends queued meanwhile go out as one transaction.
    groupCommit: true,
    ...(logger ? { logger } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    wakeGatherMs: options.wakeGatherMs ?? 3,
    // Only a process that subscribes listens: every listening backend is woken by every NOTIFY.
    onFirstSubscription: () => void listener.listen(),
    release: async () => {
      notify.close();
      await listener.close();
      await pool.end();
    },
  });
  store.onAppended(notify.appended);
  logger?.debug({ schema, poolSize: options.poolSize ?? 10 }, 'postgres event store open');
  return store;
}

function openPool(options: PostgresEventStoreOptions, schema: string, connectTimeoutMs: number): pg.Pool {
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
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'postgres event store: idle connection lost'));
  return pool;
}

/** Creates the schema when missing, on one connection; ends the pool when that fails. */
async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
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
}

function poolClient(pool: pg.Pool, queryTimeoutMs: number): SqlClient {
  return {
    // A named statement is parsed once per pooled connection (node-postgres keeps track of which
    // connection has prepared it), and planned once PostgreSQL settles on a generic plan.
    query: <R,>(text: string, params?: unknown[], name?: string) =>
      (name ? pool.query({ name, text, values: params ?? [] }) : pool.query(text, params)) as unknown as Promise<{ rows: R[] }>,
    queryPrepared: async (name, text, values) => (await pool.query({ name, text, values, rowMode: 'array' })).rows[0] as (string | null)[] | undefined,
    copyOut: (select) => copyOut(pool, select, queryTimeoutMs),
  };
}
