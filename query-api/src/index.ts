export { createQueryReads } from './query-api';
export { attachSocketServer } from './socket/server';
export { socketSessionNotices, type RoomBroadcaster } from './socket/member-rooms';
export { createOpsRouter, projectorCheck, readSideChecks, type MaxLag, type ReadinessCheck } from './ops/router';
