/**
 * Opens the event store named by a URL behind the personal-data decorator, with the key store
 * that belongs beside it: files under `<DATA_DIR>/member-keys` for PGlite on disk, the
 * `member_keys` table of the store's schema for PostgreSQL, a stream per member for
 * EventStoreDB/KurrentDB, memory for `pglite:memory`.
 * Every process of the product opens its store through here (docs/architecture.md, "Personal data").
 */
import { dirname, join, resolve } from 'node:path';
import { openEventStore, type OpenEventStoreOptions } from '../event-store/open';
import type { EventStore } from '../event-store/port';
import { SqlEventStore } from '../event-store/sql/store';
import { EncryptingEventStore } from './encrypting-store';
import { FileKeyStore } from './file-key-store';
import { CachedKeyStore, MemoryKeyStore, type KeyStore } from './key-store';
import { PostgresKeyStore } from './postgres-key-store';

export interface OpenPersonalDataOptions extends OpenEventStoreOptions {
  /** Where a PGlite store on disk keeps its key files; default `member-keys` beside its folder (DATA_DIR/member-keys). */
  keysDir?: string;
}

/** The key folder of a `pglite:<dir>` store: `member-keys` beside the store's own folder. */
export function defaultKeysDir(pgliteDir: string): string {
  return join(dirname(resolve(pgliteDir)), 'member-keys');
}

export async function openKeyStore(url: string, store: EventStore, options: { keysDir?: string } = {}): Promise<KeyStore> {
  if (url.startsWith('pglite:')) {
    const location = url.slice('pglite:'.length);
    if (location === 'memory') return new MemoryKeyStore();
    return new FileKeyStore(options.keysDir ?? defaultKeysDir(location));
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    if (!(store instanceof SqlEventStore)) throw new Error('A PostgreSQL URL opened a store that is not SQL');
    const schema = new URL(url).searchParams.get('schema') ?? 'event_store';
    return new CachedKeyStore(await PostgresKeyStore.open(store.client, schema));
  }
  if (/^(esdb|kurrentdb)(\+discover)?:\/\//.test(url)) {
    // Loaded only when asked for, like the adapter; a client of its own beside the adapter's.
    const [{ EventStoreDBClient }, { toEsdbConnectionString }, { EsdbKeyStore }] = await Promise.all([
      import('@eventstore/db-client'),
      import('../event-store/esdb'),
      import('./esdb-key-store'),
    ]);
    return new CachedKeyStore(new EsdbKeyStore(EventStoreDBClient.connectionString(toEsdbConnectionString(url))));
  }
  throw new Error(`Personal data: no key store for the event store "${store.kind}"`);
}

export async function openPersonalDataEventStore(url: string, options: OpenPersonalDataOptions = {}): Promise<EncryptingEventStore> {
  const store = await openEventStore(url, options.logger ? { logger: options.logger } : {});
  try {
    return new EncryptingEventStore(store, await openKeyStore(url, store, options.keysDir ? { keysDir: options.keysDir } : {}));
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}
