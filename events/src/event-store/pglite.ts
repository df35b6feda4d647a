/**
 * The embedded event store: PostgreSQL compiled to WASM (PGlite), data in a directory. Every
 * commit's WAL record is written through NODEFS before a query returns, so an acknowledged append
 * survives the process being killed, not an OS crash: PGlite cannot fsync (docs/event-store.md,
 * "Guarantees"). PGlite runs one query at a time, so concurrent appends go as one group, one
 * commit; appends are named prepared statements (`queryPrepared`), planned once.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EventStoreUnavailableError } from './port';
import type { EventStoreLogger, SqlClient } from './sql/client';
import { setupSchema } from './sql/schema';
import { SqlEventStore } from './sql/store';

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

const encoder = new TextEncoder();

/** One frontend protocol message: type byte, length, body. */
function message(type: string, parts: Uint8Array[]): Uint8Array {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(5 + length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setInt32(1, 4 + length);
  let at = 5;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const cString = (value: string) => encoder.encode(`${value}\0`);
const int16 = (n: number) => new Uint8Array([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setInt32(0, n);
  return bytes;
};
const SYNC = message('S', []);
const EXECUTE = message('E', [cString(''), int32(0)]);

/** Bind (unnamed portal, text parameters and results), Execute and Sync, in one buffer. */
function bindExecuteSync(name: string, params: (string | null)[]): Uint8Array {
  const nameBytes = Buffer.byteLength(name);
  let bindLength = 4 + 1 + nameBytes + 1 + 2 + 2 + 2;
  for (const param of params) bindLength += 4 + (param === null ? 0 : Buffer.byteLength(param));
  const out = Buffer.allocUnsafe(1 + bindLength + EXECUTE.length + SYNC.length);
  let at = out.write('B', 0, 'latin1');
  at = out.writeInt32BE(bindLength, at);
  out[at++] = 0; // unnamed portal
  at += out.write(name, at, 'utf8');
  out[at++] = 0;
  at = out.writeInt16BE(0, at); // parameter formats: all text
  at = out.writeInt16BE(params.length, at);
  for (const param of params) {
    if (param === null) at = out.writeInt32BE(-1, at);
    else {
      const length = out.write(param, at + 4, 'utf8');
      out.writeInt32BE(length, at);
      at += 4 + length;
    }
  }
  at = out.writeInt16BE(0, at); // result formats: all text
  out.set(EXECUTE, at);
  out.set(SYNC, at + EXECUTE.length);
  return out;
}

/**
 * `SqlClient.queryPrepared` for PGlite. `PGlite.query` sends parse, describe, bind, describe,
 * execute and sync as six calls into the WASM module and parses and plans the text every time;
 * an append through it cost about as much again as the append itself. Here a hot statement is
 * parsed once as a named prepared statement, and each call is one bind/execute/sync message
 * under PGlite's query lock (so it never interleaves with `query`).
 */
function preparedStatements(db: PGlite): NonNullable<SqlClient['queryPrepared']> {
  const prepared = new Map<string, string>();
  const run = (messages: Uint8Array[]) => {
    const length = messages.reduce((sum, part) => sum + part.length, 0);
    const all = new Uint8Array(length);
    let at = 0;
    for (const part of messages) {
      all.set(part, at);
      at += part.length;
    }
    return db.execProtocol(all);
  };
  return (name, text, params) =>
    db._runExclusiveQuery(async () => {
      const known = prepared.get(name);
      if (known !== text) {
        if (known !== undefined) await run([message('C', [encoder.encode('S'), cString(name)]), SYNC]);
        prepared.delete(name);
        await run([message('P', [cString(name), cString(text), int16(0)]), SYNC]);
        prepared.set(name, text);
      }
      const { messages } = await db.execProtocol(bindExecuteSync(name, params));
      for (const reply of messages) {
        if (reply.name === 'dataRow') return (reply as unknown as { fields: (string | null)[] }).fields;
      }
      return undefined;
    });
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
    await setupSchema((ddl) => opened.exec(ddl), SCHEMA);
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
  const client: SqlClient = {
    query: (text, params) => opened.query(text, params),
    queryPrepared: preparedStatements(opened),
  };
  return new SqlEventStore({
    kind: 'pglite',
    client,
    schema: SCHEMA,
    singleWriter: true,
    pagesAsJson: true,
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
