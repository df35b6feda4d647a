// projector/src: events → read models, in layers from the stores up.
export default {
  src: 'projector/src',
  layout: {
    'read-models': [],
    projections: ['read-models'],
    live: ['read-models', 'projections'],
    subscription: ['read-models', 'projections', 'live'],
    'metrics.ts': [],
    'projector.ts': ['read-models', 'projections', 'live', 'subscription', 'metrics.ts'],
    rebuild: ['read-models', 'projections', 'live', 'subscription', 'metrics.ts', 'projector.ts'],
    replay: ['read-models', 'projections'],
    leadership: ['read-models'],
    'index.ts': 'any',
  },
  why: {
    'read-models': 'The stores and their types are the bottom layer.',
    projections: 'A projection folds events into rows; it knows the stores\' types, nothing that runs it.',
    subscription: 'The live projector\'s collaborators do not know the runtime or the rebuilds above them.',
    'metrics.ts': 'The projector\'s Prometheus series: definitions only, measured through what the projector hands them.',
    'projector.ts': 'The live projector does not know the rebuilds that run it.',
    leadership: 'The lease and the group that takes it know the read models it fences, not what a leader runs (infra composes that).',
    replay: 'A replay projects a prefix of the store with the projections alone; it never touches the live projector or its keyspace.',
  },
};
