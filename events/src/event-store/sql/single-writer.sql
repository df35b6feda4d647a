-- The single writer's statements (single-writer.ts). {{schema}}: the schema, a quoted identifier.
--
-- last_revision: (stream) -> last revision as text, or NULL.
-- last_revisions: (streams text[]) -> rows (stream_id, r).
-- insert_one: (id, stream, revision, type, data, metadata) -> 'transaction id/position'.
-- insert_many: the same columns as arrays -> 'transaction id/position,position,...' in
-- insertion order.

-- name: last_revision
SELECT max(revision)::text AS r FROM {{schema}}.events WHERE stream_id = $1

-- name: last_revisions
SELECT u.id AS stream_id, (SELECT max(e.revision) FROM {{schema}}.events e WHERE e.stream_id = u.id)::text AS r FROM unnest($1::text[]) AS u(id)

-- name: insert_one
INSERT INTO {{schema}}.events (event_id, stream_id, revision, type, data, metadata)
VALUES ($1::uuid, $2, $3::bigint, $4, $5::jsonb, $6::jsonb)
RETURNING transaction_id::text || '/' || global_position AS r

-- name: insert_many
WITH inserted AS (
  INSERT INTO {{schema}}.events (event_id, stream_id, revision, type, data, metadata)
  SELECT u.id, u.stream, u.revision, u.type, u.data, u.metadata
    FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[], $6::jsonb[])
         WITH ORDINALITY AS u(id, stream, revision, type, data, metadata, ord)
   ORDER BY u.ord
  RETURNING transaction_id, global_position
)
SELECT (array_agg(transaction_id::text))[1] || '/' || string_agg(global_position::text, ',' ORDER BY global_position) AS r FROM inserted
