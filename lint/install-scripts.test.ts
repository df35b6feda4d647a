// npm 11 warns on every install about a dependency whose install script `allowScripts` in
// package.json does not cover. Each is decided on purpose (README.md, "Installing", says why per
// package): a new one in the lock fails here before it reaches a fresh clone's `npm ci`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const read = (file: string): unknown => JSON.parse(readFileSync(resolve(ROOT, file), 'utf8'));

interface LockEntry {
  name?: string;
  version?: string;
  hasInstallScript?: boolean;
}

/** Every package of the lock with an install script, as `name@version`. */
function withInstallScripts(): Array<{ name: string; version: string }> {
  const lock = read('package-lock.json') as { packages: Record<string, LockEntry> };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path, entry]) => ({ name: entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: entry.version ?? '' }));
}

/** An allowScripts key's package name (`pkg`, `pkg@1.2.3`, `@scope/pkg@1.2.3 || 1.2.4`). */
const nameOf = (key: string) => key.slice(0, key.indexOf('@', 1) > 0 ? key.indexOf('@', 1) : undefined);
/** Whether a key covers that version: name-only, or one of its exact versions. */
const covers = (key: string, version: string) =>
  key.indexOf('@', 1) < 0 || key.slice(key.indexOf('@', 1) + 1).split('||').map((v) => v.trim()).includes(version);

describe('install scripts', () => {
  const policy = ((read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {});
  const scripted = withInstallScripts();

  it('the lock has packages with install scripts (the check reads the right field)', () => {
    expect(scripted.length).toBeGreaterThan(0);
  });

  it("package.json's allowScripts decides every one of them", () => {
    const uncovered = scripted.filter(({ name, version }) => !Object.keys(policy).some((key) => nameOf(key) === name && covers(key, version)));
    expect(uncovered.map(({ name, version }) => `${name}@${version}`), 'decide with npm install-scripts deny|approve <pkg>, and say why in README.md "Installing"').toEqual([]);
  });

  it('names no package that no longer has one (npm install-scripts prune)', () => {
    const stale = Object.keys(policy).filter((key) => !scripted.some(({ name }) => name === nameOf(key)));
    expect(stale).toEqual([]);
  });

  it('README.md, "Installing", says why for each', () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const section = /^### Installing$([\s\S]*?)^##/m.exec(readme)?.[1] ?? '';
    const unexplained = [...new Set(Object.keys(policy).map(nameOf))].filter((name) => !section.includes(`\`${name}\``));
    expect(unexplained).toEqual([]);
  });
});
