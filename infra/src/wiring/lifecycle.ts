import { pathToFileURL } from 'node:url';

/** Runs each step in order; every step runs even if one fails, and the first failure is rethrown. */
export async function runAll(steps: Array<() => Promise<void>>): Promise<void> {
  let first: unknown;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

/** The first call runs `fn`; later calls share its promise (close() called by a signal and a test). */
export function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}

/**
 * Resources opened during start-up, closed in reverse order: on a failed start (nothing leaks)
 * and on shutdown.
 */
export class Resources {
  private readonly steps: Array<() => Promise<void>> = [];

  /** Registers how to close what was just opened; it will close before everything opened earlier. */
  add(close: () => Promise<void>): void {
    this.steps.unshift(close);
  }

  readonly close = once(() => runAll(this.steps));
}

/** True when this module is the process's entry point (`node --import tsx <file>`). */
export const isEntryPoint = (metaUrl: string): boolean => !!process.argv[1] && pathToFileURL(process.argv[1]).href === metaUrl;
