/**
 * Opens the event store named by a URL (EVENT_STORE_URL):
 * - `pglite:memory`: embedded, in memory (tests);
 * - `pglite:<dir>`: embedded, data in <dir> (relative paths resolve from the working directory);
 * - `postgres://…` / `postgresql://…`: PostgreSQL; optional `schema` and `poolSize` query parameters;
 * - `esdb://…`, `esdb+discover://…`, `kurrentdb://…`, `kurrentdb+discover://…`: EventStoreDB / KurrentDB.
 */
import { resolve } from 'node:path';
import type { EventStore } from './port';
import type { EventStoreLogger } from './sql/client';

import { openPgliteEventStore } from './pglite';
import { openPostgresEventStore } from './postgres';

export { openPgliteEventStore, openPostgresEventStore };

export interface OpenEventStoreOptions {
  logger?: EventStoreLogger;
}

export async function openEventStore(url: string, options: OpenEventStoreOptions = {}): Promise<EventStore> {
  const logger = options.logger;
  if (url.startsWith('pglite:')) {
    const location = url.slice('pglite:'.length);
    if (!location) throw new Error('Event store URL "pglite:" needs a directory or "memory"');
    return openPgliteEventStore({
      ...(location === 'memory' ? {} : { dataDir: resolve(location) }),
      ...(logger ? { logger } : {}),
    });
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    const poolSizeParam = parsed.searchParams.get('poolSize');
    parsed.searchParams.delete('schema');
    parsed.searchParams.delete('poolSize');
    const poolSize = poolSizeParam === null ? undefined : Number(poolSizeParam);
    if (poolSize !== undefined && (!Number.isInteger(poolSize) || poolSize < 1)) {
      throw new Error(`Event store URL: poolSize must be a positive integer, got "${poolSizeParam}"`);
    }
    return openPostgresEventStore({
      connectionString: parsed.toString(),
      ...(schema ? { schema } : {}),
      ...(poolSize ? { poolSize } : {}),
      ...(logger ? { logger } : {}),
    });
  }
  if (/^(esdb|kurrentdb)(\+discover)?:\/\//.test(url)) {
    // Loaded only when asked for, so the embedded and PostgreSQL stores never load the gRPC client.
    const { openEsdbEventStore } = await import('./esdb');
    return openEsdbEventStore({ connectionString: url, ...(logger ? { logger } : {}) });
  }
  throw new Error(`Unknown event store URL "${url.replace(/\/\/[^@/]*@/, '//***@')}": expected pglite:<dir>, pglite:memory, postgres://…, esdb://… or kurrentdb://…`);
}
