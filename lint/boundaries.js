// The server packages' boundaries as import-x `no-restricted-paths` zones, built from one layout per
// package (lint/zones/<package>.js). Imports are resolved to files (TypeScript's resolver), so
// relative paths, `@pass/*` entries and `import type` are all held to the same zones.
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/** What a package's src holds at its top: folders and files, tests and test-support left out. */
function topEntries(src) {
  return readdirSync(resolve(ROOT, src), { withFileTypes: true })
    .filter((entry) => entry.name !== 'test-support' && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => entry.name);
}

const targetOf = (src, entry, exceptFiles = []) => {
  if (entry.endsWith('.ts')) return `${src}/${entry}`;
  if (exceptFiles.length === 0) return `${src}/${entry}/**`;
  return `${src}/${entry}/**/!(${exceptFiles.map((f) => f.replace(/\.ts$/, '')).join('|')}).ts`;
};

/**
 * One zone per entry of `layout`: what it may import of its own package (`may`), nothing else of it.
 * An entry may name files of its folder that may import more (`files: { 'decider.ts': [...] }`).
 * Every top-level folder and file must be in the layout, so a new one is placed on purpose.
 */
export function packageZones({ src, layout, why }) {
  const entries = topEntries(src);
  const unplaced = entries.filter((entry) => !(entry in layout));
  if (unplaced.length > 0) {
    throw new Error(`lint/zones: ${src} has ${unplaced.join(', ')}, which no layout entry places (lint/zones/*.js)`);
  }
  const zones = [];
  const zone = (target, entry, may) => {
    const message = `${src}/${entry} may import ${may.length ? may.join(', ') : 'nothing else'} of its package. ${why[entry] ?? ''}`.trim();
    // `folder/file.ts` in `may` allows that file of a folder and nothing else of it.
    const partly = new Map();
    for (const m of may.filter((name) => name.includes('/'))) {
      const folder = m.slice(0, m.indexOf('/'));
      partly.set(folder, [...(partly.get(folder) ?? []), m]);
    }
    const from = entries.filter((other) => other !== entry && !may.includes(other) && !partly.has(other) && other !== 'index.ts');
    if (from.length > 0) zones.push({ target, from: from.map((other) => `${src}/${other}`), message });
    for (const [folder, files] of partly) {
      zones.push({ target, from: `${src}/${folder}`, except: files.map((f) => f.slice(folder.length + 1)), message });
    }
  };
  for (const [entry, rule] of Object.entries(layout)) {
    if (rule === 'any') continue;
    const { may, files = {} } = Array.isArray(rule) ? { may: rule } : rule;
    zone(targetOf(src, entry, Object.keys(files)), entry, may);
    for (const [file, extra] of Object.entries(files)) zone(`${src}/${entry}/${file}`, entry, [...may, ...extra]);
  }
  return zones;
}

/**
 * Between packages: each imports only the packages it depends on, and only through their entries
 * (package.json `exports`), so files can move inside a package without breaking anyone.
 */
export function packageDoors(packages) {
  const zones = [];
  for (const [name, { dependsOn }] of Object.entries(packages)) {
    for (const [other, { entries }] of Object.entries(packages)) {
      if (other === name) continue;
      const allowed = dependsOn.includes(other);
      zones.push({
        target: `${name}/src/**`,
        from: `${other}/src`,
        ...(allowed ? { except: entries } : {}),
        message: allowed
          ? `${name} reaches ${other} through its entries only (${entries.join(', ')} in ${other}/src).`
          : `${name} does not depend on ${other} (docs/architecture.md, "Front doors").`,
      });
    }
  }
  return zones;
}

export const testSupportZone = {
  target: '*/src/**',
  from: '*/src/test-support/**',
  message: 'Only tests and benchmarks import test-support.',
};

/** The event-store adapters are picked by a composition root (infra), never by a service's code. */
export const adapterZone = {
  target: ['command-api/src/**', 'projector/src/**', 'query-api/src/**'],
  from: ['events/src/store.ts', 'events/src/event-store', 'events/src/personal-data'],
  except: [],
  message: 'Only infra/ (the composition roots) opens an event store: services take the EventStore port.',
};
