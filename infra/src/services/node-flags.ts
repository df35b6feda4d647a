/** The distributed layout's processes, by the name of their entry point in infra/src/services/. */
export type ServiceName = 'command-api' | 'projector' | 'query-api' | 'image-worker' | 'proxy';

/**
 * Node's own flags each service runs with, wherever it is started: `npm run start:<service>`
 * (package.json), infra/deploy/compose.yaml, and spawnService in the tests and benches.
 * node-flags.test.ts holds the first two to this list.
 */
export const SERVICE_NODE_FLAGS: Readonly<Record<ServiceName, readonly string[]>> = {
  'command-api': [],
  // A catch-up (first start, admin rebuild) parses, decrypts and projects millions of short-lived
  // events: with V8's default 16 MB semi-spaces the scavenger runs all the time and promotes
  // batches that die soon after. At most 64 MB more resident (docs/benchmarks/history/rebuild.md,
  // "before readers waited for the search index").
  projector: ['--max-semi-space-size=64'],
  // Every ranking page parses and writes ~50 rows: with 16 MB semi-spaces the young generation
  // fills every few hundred requests and promotes enough for frequent old-space collections,
  // whose pauses make the 99th percentile of the requests around them (docs/architecture.md,
  // "HTTP hot paths"). Costs at most 32 MB more per process.
  'query-api': ['--max-semi-space-size=32'],
  'image-worker': [],
  proxy: [],
};

/**
 * The standalone process's node flags (`npm start`: scripts/start.mjs; infra/deploy/Dockerfile's
 * CMD; spawnStandalone in tests and benches), held to this list by node-flags.test.ts. A first
 * start without a snapshot replays every event in this one process, so: 64 MB semi-spaces, as the
 * projector's; and the old generation grown to 1.4 times what a full collection leaves (V8 would
 * allow about 4), so the replay's garbage is collected before it doubles the process's memory.
 * Figures: docs/benchmarks/history/cold-start.md, "First start within 2 GiB".
 */
export const STANDALONE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64', '--heap-growing-percent=40'];
