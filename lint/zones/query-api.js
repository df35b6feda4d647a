// query-api/src: read models → HTTP and Socket.IO.
export default {
  src: 'query-api/src',
  layout: {
    http: [],
    'deps.ts': [],
    'metrics.ts': [],
    reads: ['http', 'deps.ts'],
    admin: ['http', 'reads', 'deps.ts'],
    socket: ['http', 'deps.ts', 'metrics.ts'],
    ops: ['http', 'deps.ts', 'metrics.ts'],
    'query-api.ts': 'any',
    'index.ts': 'any',
  },
  why: {},
};
