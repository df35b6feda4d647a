export { createQueryReads } from './query-api';
export { attachSocketServer } from './socket/server';
export { createOpsRouter, readSideChecks, type ReadinessCheck } from './ops/router';
