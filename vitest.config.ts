import { defineConfig } from 'vitest/config';

// One project per runtime. `npm test` (scripts/test.mjs) runs them all and prints the summary.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['{events,command-api,projector,query-api,infra}/src/**/*.test.ts', 'bench/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['web/src/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
