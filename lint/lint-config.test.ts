// The lint configuration is a test subject of its own: each boundary it promises is planted as a
// violation (a file's text linted at a path in the zone, the files it imports real) and must be
// reported by the rule that owns it, while the same file without the planted import is clean.
import { readdirSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

interface Layout {
  src: string;
  layout: Record<string, 'any' | string[] | { may: string[]; files?: Record<string, string[]> }>;
}

let eslint: ESLint;
const layouts: Layout[] = [];

beforeAll(async () => {
  eslint = new ESLint({ cwd: ROOT });
  for (const name of ['events', 'command-api', 'projector', 'query-api', 'infra']) {
    const path: string = resolve(ROOT, 'lint/zones', `${name}.js`);
    layouts.push(((await import(path)) as { default: Layout }).default);
  }
}, 60_000);

/** The rules that fire on `text` linted as if it were `file` (relative to the repository). */
async function rulesFiring(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: resolve(ROOT, file) });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

/** A real product module of a layout entry (a folder's first, or the file itself). */
function moduleOf(src: string, entry: string): string | undefined {
  if (entry.endsWith('.ts')) return `${src}/${entry}`;
  const files = readdirSync(resolve(ROOT, src, entry), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
    .sort();
  return files[0] === undefined ? undefined : `${src}/${entry}/${files[0]}`;
}

const specifierTo = (fromFile: string, toFile: string) => {
  const path = relative(resolve(ROOT, fromFile, '..'), resolve(ROOT, toFile)).replace(/\.tsx?$/, '');
  return path.startsWith('.') ? path : `./${path}`;
};

const plantedIn = (src: string, entry: string) => (entry.endsWith('.ts') ? `${src}/${entry}` : `${src}/${entry}/planted.ts`);

/** Each restricted entry of each layout, and one entry of its package it must not import. */
function plantedZoneCases() {
  const cases: { name: string; file: string; target: string }[] = [];
  for (const { src, layout } of layouts) {
    const entries = readdirSync(resolve(ROOT, src)).filter((e) => e !== 'test-support' && !/\.test\.ts$/.test(e));
    for (const [entry, rule] of Object.entries(layout)) {
      if (rule === 'any' || !entries.includes(entry)) continue;
      const may = Array.isArray(rule) ? rule : rule.may;
      const forbidden = entries.find((other) => other !== entry && other !== 'index.ts' && !may.includes(other) && moduleOf(src, other));
      if (!forbidden) continue;
      cases.push({ name: `${src}/${entry} → ${forbidden}`, file: plantedIn(src, entry), target: moduleOf(src, forbidden)! });
    }
  }
  return cases;
}

describe('lint: zones of the server packages', () => {
  it('reports a planted import of a higher layer or another capability, type-only too, in every zone', async () => {
    const cases = plantedZoneCases();
    expect(cases.length).toBeGreaterThan(20);
    const missed: string[] = [];
    for (const { name, file, target } of cases) {
      const planted = `import type * as planted from '${specifierTo(file, target)}';\nexport type Planted = typeof planted;\n`;
      const fired = await rulesFiring(file, planted);
      if (!fired.includes('import-x/no-restricted-paths')) missed.push(name);
    }
    expect(missed).toEqual([]);
  }, 120_000);

  it('lets the member aggregate\'s decider import a capability\'s decide step, and no other member module', async () => {
    const decideStep = `import { decideSendChatMessage } from '../chat/send';\nexport const dispatch = decideSendChatMessage;\n`;
    expect(await rulesFiring('command-api/src/members/decider.ts', decideStep)).not.toContain('import-x/no-restricted-paths');
    expect(await rulesFiring('command-api/src/members/planted.ts', decideStep)).toContain('import-x/no-restricted-paths');
  });

  it('keeps test-support out of product code, but not out of tests', async () => {
    const text = `import { eventually } from '@pass/events/test-support';\nexport const wait = eventually;\n`;
    expect(await rulesFiring('projector/src/live/planted.ts', text)).toContain('import-x/no-restricted-paths');
    expect(await rulesFiring('projector/src/live/planted.test.ts', text)).not.toContain('import-x/no-restricted-paths');
  });

  it('lets a package reach only the packages it depends on, through their entries', async () => {
    const file = 'query-api/src/reads/planted.ts';
    const internal = `import type { ReadModelStore } from '../../../projector/src/read-models/port';\nexport type S = ReadModelStore;\n`;
    const entry = `import type { ReadModelStore } from '@pass/projector';\nexport type S = ReadModelStore;\n`;
    const notADependency = `import type { CommandApi } from '@pass/command-api';\nexport type C = CommandApi;\n`;
    expect(await rulesFiring(file, internal)).toContain('import-x/no-restricted-paths');
    expect(await rulesFiring(file, entry)).toEqual([]);
    expect(await rulesFiring(file, notADependency)).toContain('import-x/no-restricted-paths');
  });

  it('leaves opening an event store to the composition roots', async () => {
    const text = `import { openEventStore } from '@pass/events/store';\nexport const open = openEventStore;\n`;
    expect(await rulesFiring('projector/src/rebuild/planted.ts', text)).toContain('import-x/no-restricted-paths');
    expect(await rulesFiring('infra/src/wiring/planted.ts', text)).toEqual([]);
  });
});

describe('lint: import circles', () => {
  it('reports a circle closed by a type-only import, and nothing without it', async () => {
    // events/src/api.ts imports domain-events.ts; planting the way back closes a circle.
    const file = 'events/src/domain-events.ts';
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(resolve(ROOT, file), 'utf8');
    expect(await rulesFiring(file, text)).not.toContain('pass/no-import-cycle');
    const planted = `import type { MainDataView } from './api';\nexport type Planted = MainDataView;\n${text}`;
    expect(await rulesFiring(file, planted)).toContain('pass/no-import-cycle');
  });
});

describe('lint: function length', () => {
  const longFunction = (lines: number) =>
    `export function long(): number {\n  let total = 0;\n${'  total += 1;\n'.repeat(lines - 4)}  return total;\n}\n`;

  it('allows 80 lines and refuses 81 in product code, and leaves tests alone', async () => {
    expect(await rulesFiring('command-api/src/chat/planted.ts', longFunction(80))).toEqual([]);
    expect(await rulesFiring('command-api/src/chat/planted.ts', longFunction(81))).toContain('max-lines-per-function');
    expect(await rulesFiring('command-api/src/chat/planted.test.ts', longFunction(200))).toEqual([]);
  });
});

describe('lint: web features', () => {
  it('keeps features from importing each other', async () => {
    const text = `import { chatReducer } from '../chat/slice';\nexport const reducer = chatReducer;\n`;
    expect(await rulesFiring('web/src/features/ranking/planted.ts', text)).toContain('no-restricted-imports');
    expect(await rulesFiring('web/src/features/chat/planted.ts', `import { chatReducer } from './slice';\nexport const r = chatReducer;\n`)).toEqual([]);
  });
});
