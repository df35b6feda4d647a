/**
 * The one loader of the `.sql` files beside the code running them, read once when the module
 * loads: `const sql = sqlFile(new URL('./reads.sql', import.meta.url))`, then `sql('head', values)`.
 * A statement runs from a line `-- name: <statement>` to the next (blank lines around it dropped);
 * lines before the first name are the file's notes (what each statement takes and answers).
 * `{{schema}}` is the quoted schema; other `{{name}}`s are SQL pieces of our own, never input.
 * A missing statement or an unfilled placeholder throws.
 */
import { readFileSync } from 'node:fs';

/** A file's statement by name, its placeholders filled from `values`. */
export type SqlFile = (statement: string, values?: Readonly<Record<string, string>>) => string;

const NAME_LINE = /^-- name: ([a-z][a-z0-9_]*)\s*$/;
const PLACEHOLDER = /\{\{([a-z][a-z0-9_]*)\}\}/g;

export function sqlFile(url: URL): SqlFile {
  const statements = parseStatements(readFileSync(url, 'utf8'), url);
  return (statement, values = {}) => {
    const text = statements.get(statement);
    if (text === undefined) throw new Error(`${url.pathname} has no statement "${statement}"`);
    return text.replace(PLACEHOLDER, (_, key: string) => {
      if (!Object.hasOwn(values, key)) throw new Error(`Statement "${statement}" of ${url.pathname} needs a value for {{${key}}}`);
      return values[key]!;
    });
  };
}

function parseStatements(file: string, url: URL): Map<string, string> {
  const statements = new Map<string, string>();
  let name: string | undefined;
  let lines: string[] = [];
  const close = () => {
    if (name === undefined) return;
    while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    statements.set(name, lines.join('\n'));
  };
  for (const line of file.split('\n')) {
    const header = NAME_LINE.exec(line);
    if (!header) {
      lines.push(line);
      continue;
    }
    close();
    name = header[1]!;
    if (statements.has(name)) throw new Error(`${url.pathname} names "${name}" twice`);
    lines = [];
  }
  close();
  return statements;
}
