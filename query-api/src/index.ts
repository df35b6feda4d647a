export { createQueryReads } from './query-api';
export type { PreparedJson, ReadLane } from './http/read-lane';
export { attachSocketServer } from './socket/server';
export { createOpsRouter, readSideChecks, type ReadinessCheck } from './ops/router';
