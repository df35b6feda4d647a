// The EventStoreDB adapter over the in-memory fake of its client, for other packages' tests of
// tools that run on KurrentDB (loads the gRPC client: a path of its own, not the index's).
export { FakeEsdb, type FakeRecord } from './esdb-fake';
export { createEsdbEventStore } from '../event-store/esdb';
