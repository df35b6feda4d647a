/** The calls of the append functions (schema.ts) and the one-statement fast path, for schema `s` (quoted). */
export interface AppendStatements {
  append: string;
  appendOne: string;
  appendFast: string;
  appendRetry: string;
}

export function appendStatements(s: string): AppendStatements {
  return {
    append: `SELECT ${s}.append_events($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) AS r`,
    appendOne: `SELECT ${s}.append_event($1, $2, $3::uuid, $4, $5::jsonb, $6::jsonb) AS r`,
    appendFast: `WITH claimed AS (
  UPDATE ${s}.streams st SET revision = st.revision + 1
   WHERE st.stream_id = $1 AND ($2::bigint IN (-2, -3) OR st.revision = $2::bigint)
   RETURNING st.revision
)
INSERT INTO ${s}.events (event_id, stream_id, revision, type, data, metadata)
SELECT $3::uuid, $1, c.revision, $4, $5::jsonb, $6::jsonb FROM claimed c
RETURNING revision || '/' || transaction_id || '/' || global_position AS r`,
    appendRetry: `SELECT ${s}.append_retry($1, $2, $3::uuid[]) AS r`,
  };
}
