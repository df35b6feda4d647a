// Every `§N` a comment or doc cites must be a heading a reader of the repository can open:
// `docs/product.md §N` names the section `## N. …` of the product description (a list such as
// `docs/product.md §4, §5` names it once). The owner's spec and design notes live outside the
// repository, so "spec §N" or "DESIGN §N" would lead nowhere.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CITED = /§\s*(\d+(?:\.\d+)?)/g;
const PRODUCT = 'docs/product.md';

/** The section numbers of docs/product.md's headings (`## 2. Screens…` → "2"). */
function productSections(): Set<string> {
  const headings = readFileSync(resolve(ROOT, PRODUCT), 'utf8').match(/^#{2,4} \d+(?:\.\d+)*\./gm) ?? [];
  return new Set(headings.map((heading) => heading.replace(/^#+ /, '').slice(0, -1)));
}

function citingFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return tracked
    .split('\n')
    .filter((file) => /\.(ts|tsx|js|mjs|css|html|md|yaml|yml|sql|lua)$/.test(file))
    .filter((file) => file !== PRODUCT && !file.startsWith('docs/benchmarks/history/'));
}

describe('cited sections', () => {
  it('every § in code and docs names docs/product.md and a section it has', () => {
    const sections = productSections();
    expect(sections.size).toBeGreaterThanOrEqual(9);
    const broken: string[] = [];
    for (const file of citingFiles()) {
      let text: string;
      try {
        text = readFileSync(resolve(ROOT, file), 'utf8');
      } catch {
        continue; // deleted in the working tree
      }
      for (const match of text.matchAll(CITED)) {
        const lineStart = text.lastIndexOf('\n', match.index) + 1;
        const before = text.slice(lineStart, match.index);
        if (!before.includes(PRODUCT) || !sections.has(match[1] ?? '')) {
          const line = text.slice(0, match.index).split('\n').length;
          broken.push(`${file}:${line}: ${text.slice(lineStart, text.indexOf('\n', match.index)).trim()}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
