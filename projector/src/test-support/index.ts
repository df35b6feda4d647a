// Test support other packages' suites and the benchmarks use: a recorded day of the site,
// appending domain events to a store, a deterministic event generator, and a Redis Cluster of
// a suite's own.
export * from './recorded-events';
export * from './append';
export * from './chat-site';
export * from './generate-events';
export * from './redis-cluster';
export * from './user-row';
/** How the projections index a row, for tests that build read models by hand. */
export { rankKey, rowIndexSetList } from '../read-models/search';
/** A row's search text as the projections write it (tests that fill a keyspace by hand). */
export { searchText } from '../read-models/search-text';
export * from './snapshot-file';
