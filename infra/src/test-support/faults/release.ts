import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const here = resolve(import.meta.dirname, '../../../..');
/** Not part of what a release runs, or too large to copy (node_modules is hard-linked instead). */
const LEFT_OUT = new Set(['.git', 'node_modules', 'web', 'bench', 'docs', '.test-results']);

/**
 * Another release of the product, for upgrade tests: a copy of this checkout whose projection
 * code differs (a line added to `file`, so its fingerprint changes and nothing else does).
 * node_modules is hard-linked (the workspace packages are relative links, so they resolve to
 * the copy's own code). `close()` deletes it.
 */
export function releaseWithChangedProjection(file = 'projector/src/projections/main-data.ts'): { root: string; close(): void } {
  const root = mkdtempSync(join(tmpdir(), 'pass-release-'));
  for (const name of readdirSync(here)) {
    if (!LEFT_OUT.has(name)) execFileSync('cp', ['-a', join(here, name), root]);
  }
  execFileSync('cp', ['-al', join(here, 'node_modules'), root]);
  appendFileSync(join(root, file), '\n// The next release: its projection code differs from this checkout\'s.\n');
  return { root, close: () => rmSync(root, { recursive: true, force: true }) };
}
