// Which package depends on which, and each package's entries (its package.json `exports`).
export default {
  events: {
    dependsOn: [],
    entries: ['index.ts', 'kernel.ts', 'zod-jitless.ts', 'store.ts', 'personal-data/index.ts', 'redis/index.ts'],
  },
  'command-api': { dependsOn: ['events'], entries: ['index.ts'] },
  projector: { dependsOn: ['events'], entries: ['index.ts'] },
  'query-api': { dependsOn: ['events', 'projector'], entries: ['index.ts'] },
  infra: { dependsOn: ['events', 'command-api', 'projector', 'query-api'], entries: ['index.ts'] },
};
