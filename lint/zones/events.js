// events/src: the shared kernel. Schemas at the root, rules over them, adapters beside them.
const SCHEMAS = ['api.ts', 'commands.ts', 'constants.ts', 'countries.ts', 'domain-events.ts', 'fast-lane.ts', 'metadata.ts', 'page-settings.ts', 'pages.ts', 'sessions.ts', 'stream-events.ts', 'upcasters.ts'];

export default {
  src: 'events/src',
  layout: {
    ...Object.fromEntries(SCHEMAS.map((file) => [file, SCHEMAS])),
    rules: [...SCHEMAS, 'event-store/port.ts'],
    'event-store': SCHEMAS,
    'personal-data': [...SCHEMAS, 'rules', 'event-store'],
    redis: [],
    'streams.ts': [...SCHEMAS, 'rules'],
    'zod-jitless.ts': [],
    // The entries compose the rest.
    'index.ts': 'any',
    'kernel.ts': 'any',
    'store.ts': 'any',
  },
  why: {
    rules: 'A rule is pure: it reads schemas and, for the point history, the store port, never an adapter.',
    'event-store': 'Adapters know the schemas, not the rules or the personal-data layer above them.',
  },
};
