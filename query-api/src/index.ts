export { createQueryApi, createQueryReads, type QueryReads } from './query-api';
export type { PreparedJson, ReadAnswer, ReadLane, ReadRoute } from './http/read-lane';
export type { QueryApiDeps } from './deps';
export { attachSocketServer, type SocketDeps, type PassServer } from './socket/server';
export { createOpsRouter, readSideChecks, type OpsDeps, type ReadinessCheck } from './ops/router';
export { queryMetrics } from './metrics';
