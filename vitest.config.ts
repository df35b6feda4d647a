import { defineConfig } from 'vitest/config';

// The long fault suites (infra/src/test-support/faults/*.faults.ts) run only when asked for by name
// (`npm run test:faults` = `vitest run --project faults`), never with the default projects.
const faultsAsked = process.argv.some((arg) => arg === 'faults' || arg === '--project=faults');

// One project per runtime. `npm test` (scripts/test.mjs) runs them all and prints the summary.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['{events,command-api,projector,query-api,infra}/src/**/*.test.ts', 'bench/**/*.test.ts', 'lint/**/*.test.ts'],
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
      {
        // Real Chromium against the real standalone build (web/e2e/journeys.test.ts): one file at a
        // time, long timeouts (the free-point countdown runs 30 s of real time), and after the
        // other projects (groupOrder), so its timings do not share the 2 cores with them.
        test: {
          name: 'browser',
          sequence: { groupOrder: 1 },
          environment: 'node',
          include: ['web/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A fresh page's figures arrive by fetch and socket: under a full run on 2 cores they
          // took longer than expect.poll's default 1 s (a guest's "Funds Raised" still $0.00).
          expect: { poll: { timeout: 5_000 } },
          pool: 'forks',
          fileParallelism: false,
          maxWorkers: 1,
        },
      },
      ...(faultsAsked
        ? [
            {
              test: {
                name: 'faults',
                environment: 'node',
                include: ['infra/src/test-support/faults/**/*.faults.ts'],
                testTimeout: 300_000,
                hookTimeout: 120_000,
                pool: 'forks' as const,
                fileParallelism: false,
                maxWorkers: 1,
              },
            },
          ]
        : []),
    ],
  },
});
