export { createQueryReads } from './query-api';
export { attachSocketServer } from './socket/server';
export { createOpsRouter, projectorCheck, readSideChecks, type MaxLag, type ReadinessCheck } from './ops/router';
