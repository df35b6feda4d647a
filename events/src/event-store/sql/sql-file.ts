/**
 * The one loader of the `.sql` files that sit beside the code running them. A module reads its
 * file once, when it loads: `const sql = sqlFile(new URL('./reads.sql', import.meta.url))`,
 * then `sql('head', { schema, horizon })` answers a statement's text.
 *
 * File format: named statements, each from a line `-- name: <statement>` to the next such line
 * (or the end of the file). Lines before the first name are the file's notes: what each
 * statement takes and answers, and what its placeholders stand for. A statement's text is its
 * lines without the blank lines around it; SQL comments inside it are part of it.
 *
 * Placeholders: `{{schema}}` is always the event store's schema as a quoted identifier
 * (quoteIdent); other `{{name}}`s are pieces the calling module puts in, named in the file's
 * notes. A value goes in as it is: only identifiers checked by assertSchemaName and SQL text of
 * our own may be given, never input. A statement the file lacks, or a placeholder left without
 * a value, throws.
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
