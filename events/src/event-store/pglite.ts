/**
 * The embedded event store: PostgreSQL compiled to WASM (PGlite), data in a directory.
 *
 * Durability: with a directory, PGlite mounts it through Emscripten's NODEFS, so every write
 * Postgres makes goes straight to the host file with a synchronous write(2). PGlite runs with
 * `synchronous_commit = on`, so the commit's WAL record is written before a query returns: an
 * acknowledged append is in the operating system's page cache and survives the process being
 * killed (`kill -9`, crash, OOM). PGlite runs `fsync = off` and its NODEFS has no fsync, so an
 * operating-system crash or power cut can lose the last appends; use PostgreSQL where that
 * matters. We never pass `relaxedDurability` (it only delays syncing for browser filesystems).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EventStoreUnavailableError } from './port';
import { SqlEventStore, setupSchema, type EventStoreLogger, type SqlClient } from './sql';

export interface PgliteEventStoreOptions {
  /** Directory holding the database; created when missing. Undefined: in memory (tests). */
  dataDir?: string;
  logger?: EventStoreLogger;
  /** Fallback poll interval of subscriptions; appends in this process wake them at once. */
  pollIntervalMs?: number;
}

const SCHEMA = 'event_store';

export async function openPgliteEventStore(options: PgliteEventStoreOptions = {}): Promise<SqlEventStore> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  let db: PGlite;
  try {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    db = await PGlite.create(dataDir ? { dataDir } : {});
    await setupSchema((sql) => db.exec(sql), SCHEMA);
  } catch (error) {
    throw new EventStoreUnavailableError(`Cannot open the embedded event store${dataDir ? ` in ${dataDir}` : ''}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  options.logger?.debug({ dataDir: dataDir ?? 'memory' }, 'pglite event store open');
  // PGlite runs one query at a time and queues the rest; the store needs nothing more.
  const client: SqlClient = db as unknown as SqlClient;
  return new SqlEventStore({
    kind: 'pglite',
    client,
    schema: SCHEMA,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    release: () => db.close(),
  });
}
