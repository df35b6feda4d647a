/**
 * The SQL event store's schema (schema.sql): tables, the append functions (append.sql), the
 * group commit's batch function (group-commit.sql). Idempotent, created under an advisory lock
 * on every open.
 */
import { appendFunctionsSql } from './append-sql';
import { appendBatchFunctionSql } from './group-commit';
import { assertSchemaName, quoteIdent } from './identifiers';
import { sqlFile } from './sql-file';

const sql = sqlFile(new URL('./schema.sql', import.meta.url));

/**
 * The events table's DDL under the name `table`, with its `$all` order index named `orderIndex`
 * (no closing semicolons): the store's own table, and the event-store bench's raw-INSERT table.
 */
export function eventsTableSql(table: string, orderIndex: string): [table: string, index: string] {
  return [sql('events_table', { table }), sql('events_order_index', { table, index: orderIndex })];
}

/** Idempotent: run on every open, under an advisory lock so concurrent opens do not race. */
export function schemaSql(schema: string): string {
  const quoted = quoteIdent(schema);
  const statements = [
    sql('create_schema', { schema: quoted }),
    sql('streams_table', { schema: quoted }),
    ...eventsTableSql(`${quoted}.events`, 'events_global_order'),
    sql('drop_row_returning_functions', { schema_name: schema }),
    ...appendFunctionsSql(quoted),
    appendBatchFunctionSql(quoted),
  ];
  return `\n${statements.map((statement) => `${statement};`).join('\n\n')}\n`;
}

/** Runs the schema setup; `client` must hold one connection for the duration (lock + DDL). */
export async function setupSchema(exec: (sql: string) => Promise<unknown>, schema: string): Promise<void> {
  assertSchemaName(schema);
  // Concurrent first opens would race on CREATE ... IF NOT EXISTS; serialise them.
  await exec(sql('setup', { schema_name: schema, ddl: schemaSql(schema) }));
}
