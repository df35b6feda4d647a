/** The append functions (DDL, with the schema) and the statements that call them, from append.sql. */
import { sqlFile } from './sql-file';

const sql = sqlFile(new URL('./append.sql', import.meta.url));

/** The append functions of schema `schema` (quoted), in the order they are created, without closing semicolons. */
export function appendFunctionsSql(schema: string): string[] {
  const claimRevisions = (ids: string) => sql('claim_revisions', { schema, ids });
  return [
    sql('define_append_retry', { schema }),
    sql('define_append_events', { schema, claim_revisions: claimRevisions('p_ids') }),
    sql('define_append_event', { schema, claim_revisions: claimRevisions('ARRAY[p_id]') }),
  ];
}

/** The calls of the append functions and the one-statement fast path, for schema `schema` (quoted). */
export interface AppendStatements {
  append: string;
  appendOne: string;
  appendFast: string;
  appendRetry: string;
}

export function appendStatements(schema: string): AppendStatements {
  return {
    append: sql('call_append_events', { schema }),
    appendOne: sql('call_append_event', { schema }),
    appendFast: sql('append_fast', { schema }),
    appendRetry: sql('call_append_retry', { schema }),
  };
}
