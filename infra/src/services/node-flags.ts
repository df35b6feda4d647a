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
  // events: with 16 MB semi-spaces the scavenger ran all the time and promoted batches that
  // died soon after. 64 MB took a 1M-event rebuild from 42 to 36 s of one core (docs/benchmarks.md,
  // "Full rebuild"); at most 64 MB more resident.
  projector: ['--max-semi-space-size=64'],
  // Every ranking page parses and writes ~50 rows: with V8's default 16 MB semi-spaces its
  // young generation filled every few hundred requests and promoted enough for frequent old-space
  // collections, whose pauses and concurrent marking (a whole core of two) made the 99th
  // percentile of the requests around them (a 0.1 ms country top 5: 2.1 ms after a run of
  // ranking pages, 0.35 ms with 32 MB). Costs at most 32 MB more per process; CPU unchanged.
  'query-api': ['--max-semi-space-size=32'],
  'image-worker': [],
  proxy: [],
};

/**
 * The standalone process's node flags (`npm start`: scripts/start.mjs; the image's default CMD in
 * infra/deploy/Dockerfile; spawnStandalone in the tests and benches), held to this list by
 * node-flags.test.ts. A first start without a snapshot replays every event in this one process:
 * - 64 MB semi-spaces, as the projector's: fewer of the replay's short-lived events promoted.
 * - The old generation allowed to grow to 1.4 times what a full collection leaves, where V8
 *   would let it grow to about 4 times: the replay's garbage is collected before it doubles the
 *   process's memory, at no measurable cost in time.
 * Figures: docs/benchmarks.md, "Standalone cold start".
 */
export const STANDALONE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64', '--heap-growing-percent=40'];
