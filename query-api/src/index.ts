export { createQueryReads } from './query-api';
export type { PreparedJson, ReadAnswer, ReadLane, ReadRoute } from './http/read-lane';
export type { QueryApiDeps } from './deps';
export { attachSocketServer } from './socket/server';
export { createOpsRouter, readSideChecks, type ReadinessCheck } from './ops/router';
