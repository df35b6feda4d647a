/**
 * The embedded event store: PostgreSQL compiled to WASM (PGlite), data in a directory.
 *
 * Durability: with a directory, PGlite mounts it through Emscripten's NODEFS, so every write
 * Postgres makes goes straight to the host file with a synchronous write(2). PGlite runs with
 * `synchronous_commit = on`, so the commit's WAL record is written before a query returns: an
 * acknowledged append is in the operating system's page cache and survives the process being
 * killed (`kill -9`, crash, OOM). PGlite runs `fsync = off` and its NODEFS has no fsync, so an
 * operating-system crash or power cut can lose the last appends; use PostgreSQL where that
 * matters. `relaxedDurability` is left off; it only decides whether a query waits for the
 * filesystem's `syncToFs`, which NodeFS does not need (a no-op: its writes are already direct).
 *
 * Concurrent one-event appends are sent as one group (one call, one commit): PGlite runs one
 * query at a time, so this is where concurrent writers gain throughput.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite has no postmaster to stop a second instance on the same directory, and two would
 * corrupt it. A lock file holding the owner's pid keeps it to one; a lock left by a process
 * that died (kill -9) is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'event-store.lock');
  const take = () => {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  };
  if (!take()) {
    const owner = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
      throw new Error(`${dataDir} is already open in process ${owner}${owner === process.pid ? ' (this one)' : ''}; if no such process uses it, delete ${file}`);
    }
    rmSync(file, { force: true });
    if (!take()) throw new Error(`${dataDir} was locked by another process while opening it`);
  }
  return () => rmSync(file, { force: true });
}

export async function openPgliteEventStore(options: PgliteEventStoreOptions = {}): Promise<SqlEventStore> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  let db: PGlite | undefined;
  let unlock = () => {};
  try {
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      unlock = lockDataDir(dataDir);
    }
    db = await PGlite.create(dataDir ? { dataDir } : {});
    const opened = db;
    await setupSchema((sql) => opened.exec(sql), SCHEMA);
  } catch (error) {
    await db?.close().catch(() => undefined);
    unlock();
    throw new EventStoreUnavailableError(`Cannot open the embedded event store${dataDir ? ` in ${dataDir}` : ''}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const opened = db;
  options.logger?.debug({ dataDir: dataDir ?? 'memory' }, 'pglite event store open');
  // PGlite runs one query at a time and queues the rest; the store needs nothing more.
  const client: SqlClient = opened as unknown as SqlClient;
  return new SqlEventStore({
    kind: 'pglite',
    client,
    schema: SCHEMA,
    groupAppends: true,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    release: async () => {
      try {
        await opened.close();
      } finally {
        unlock();
      }
    },
  });
}
