// command-api/src: the write side, cut by capability (docs/architecture.md, "Glossary").
/** Shared by every capability; none of them imports a capability. */
const PLATFORM = ['kernel', 'mail', 'sessions', 'http', 'uploads', 'redis-keys.ts'];
/** The aggregates several capabilities decide on. */
const AGGREGATES = ['members', 'passes-pool'];
const CAPABILITIES = ['account-access', 'admin', 'chat', 'erasure', 'free-points', 'my-data', 'passes', 'payments', 'site'];

export default {
  src: 'command-api/src',
  layout: {
    kernel: [],
    'redis-keys.ts': [],
    mail: ['kernel'],
    sessions: ['kernel', 'redis-keys.ts'],
    http: ['kernel', 'sessions'],
    uploads: ['kernel', 'http'],
    // The member aggregate's decider dispatches to each capability's decide step (Emmett's shape).
    members: { may: [...PLATFORM, 'services.ts'], files: { 'decider.ts': CAPABILITIES } },
    'passes-pool': [...PLATFORM],
    ...Object.fromEntries(CAPABILITIES.map((c) => [c, [...PLATFORM, ...AGGREGATES, 'services.ts']])),
    // Composition: what the routes share, the in-process gateway, the root.
    'services.ts': 'any',
    gateway: 'any',
    'command-api.ts': 'any',
    'index.ts': 'any',
  },
  why: {
    kernel: 'The command handler and its collaborators know no capability.',
    http: 'Errors carry their own HTTP status; the routes\' services type lives in services.ts.',
    ...Object.fromEntries(CAPABILITIES.map((c) => [c, 'Capabilities do not import each other: share through an aggregate (members/, passes-pool/) or the platform.'])),
  },
};
