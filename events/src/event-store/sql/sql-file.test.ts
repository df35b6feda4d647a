import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlFile } from './sql-file';

describe('sqlFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sql-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (text: string) => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.sql`);
    writeFileSync(path, text);
    return sqlFile(pathToFileURL(path));
  };

  it('answers a named statement without the notes before it and the blank lines around it, placeholders filled', () => {
    const sql = file('-- notes on the file\n\n-- name: first\n\n  -- kept: inside the statement\nSELECT {{a}}, $1 FROM {{schema}}.t\n\n-- name: second\nSELECT 2\n');
    expect(sql('first', { a: '$&', schema: '"s"' })).toBe('  -- kept: inside the statement\nSELECT $&, $1 FROM "s".t');
    expect(sql('second')).toBe('SELECT 2');
  });

  it('refuses a statement the file lacks, a placeholder without a value, and a name given twice', () => {
    const sql = file('-- name: one\nSELECT {{schema}}\n');
    expect(() => sql('two')).toThrow(/no statement "two"/);
    expect(() => sql('one')).toThrow(/needs a value for \{\{schema\}\}/);
    expect(() => file('-- name: one\nSELECT 1\n-- name: one\nSELECT 2\n')).toThrow(/names "one" twice/);
  });
});
