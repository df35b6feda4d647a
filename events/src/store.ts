// The event-store adapters (Node only): `openEventStore(url)` picks one by its URL; the
// PGlite and PostgreSQL openers are here for hosts and tools that name their store directly.
export { openEventStore, type OpenEventStoreOptions } from './event-store/open';
export { openPgliteEventStore, type PgliteEventStoreOptions } from './event-store/pglite';
export { openPostgresEventStore, type PostgresEventStoreOptions } from './event-store/postgres';
export { SqlEventStore } from './event-store/sql/store';
export { esdbTombstones, openEsdbTombstones, type EsdbTombstoneClient, type StreamTombstones } from './event-store/esdb-tombstones';
// Every process opens its store through this one: members' personal fields encrypted at rest.
export { openPersonalDataEventStore, type OpenPersonalDataOptions } from './personal-data/open';
