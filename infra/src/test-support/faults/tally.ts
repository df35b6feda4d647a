import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeEach, onTestFailed } from 'vitest';

/**
 * Counts for a fault suite: cases tried, failures, events lost. Printed as one line when the
 * suite ends (`[faults] <suite>: …`) and appended to `<TEST_RESULTS_DIR>/faults-summary.txt`.
 */
export interface Tally {
  /** Acknowledged events (or commands) found missing after a fault; also asserted to be 0. */
  lost(count: number): void;
  /** Extra figures for the summary line (acknowledged commands, events checked, …). */
  note(key: string, value: number | string): void;
}

export function faultTally(suite: string): Tally {
  let tried = 0;
  let failures = 0;
  let lost = 0;
  const notes = new Map<string, number | string>();
  let started = 0;
  beforeEach(() => {
    started ||= Date.now();
    tried += 1;
    onTestFailed(() => {
      failures += 1;
    });
  });
  afterAll(() => {
    const extra = [...notes].map(([k, v]) => `, ${k} ${v}`).join('');
    const line = `[faults] ${suite}: cases tried ${tried}, failures ${failures}, events lost ${lost}${extra}, ${((Date.now() - started) / 1000).toFixed(1)} s`;
    console.warn(line);
    const dir = resolve(process.env.TEST_RESULTS_DIR ?? '.test-results');
    mkdirSync(dir, { recursive: true });
    appendFileSync(resolve(dir, 'faults-summary.txt'), `${new Date().toISOString()} ${line}\n`);
  });
  return {
    lost: (count) => {
      lost += count;
    },
    note: (key, value) => {
      const previous = notes.get(key);
      notes.set(key, typeof value === 'number' && typeof previous === 'number' ? previous + value : value);
    },
  };
}
