-- The read statements and the pieces they are made of (read-sql.ts). {{schema}}: the schema, a
-- quoted identifier.
--
-- horizon: what `$all` holds, what committed below every transaction still running (see
-- docs/architecture.md, "Event store"). after_position: strictly after the position given as
-- {{tx}} (transaction id as text) and {{global_position}}.
--
-- columns: an event row as events-from-rows.ts reads it; a read that keeps some metadata keys
-- only puts metadata_key_column ({{key}}, as column {{column}}) in place of `metadata`.
--
-- all_page: a `$all` page, the events matching {{where}} in `$all` order, at most {{limit}}.
-- stream_forwards, stream_backwards: a stream's reads ($1 stream id, $2 first revision, $3 how
-- many). json_page: the {{rows}} of such a read as one value `page`, a JSON array of arrays
-- ({{fields}} each, ordered by {{order}}), so the driver hands back one value instead of
-- every field of every row.
--
-- pending: whether an event matching {{where}} exists, looked for in `$all` order: the first
-- match of an ordered scan of the global order index. (An EXISTS let the planner expect many
-- matches and scan the whole table for one when the table had no statistics yet.)

-- name: horizon
transaction_id < pg_snapshot_xmin(pg_current_snapshot())

-- name: after_position
(transaction_id, global_position) > ({{tx}}::text::xid8, {{global_position}}::bigint)

-- name: columns
event_id::text AS event_id, stream_id, revision, transaction_id::text AS tx, global_position, type, data, metadata,
  floor(extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms

-- name: metadata_key_column
metadata->'{{key}}' AS {{column}}

-- name: all_page
SELECT {{columns}} FROM {{schema}}.events WHERE {{where}} ORDER BY transaction_id, global_position LIMIT {{limit}}

-- name: stream_forwards
SELECT {{columns}} FROM {{schema}}.events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision ASC LIMIT $3

-- name: stream_backwards
SELECT {{columns}} FROM {{schema}}.events WHERE stream_id = $1 AND revision <= $2 ORDER BY revision DESC LIMIT $3

-- name: json_page
SELECT coalesce(json_agg(json_build_array({{fields}}) ORDER BY {{order}}), '[]') AS page FROM ({{rows}}) e

-- name: pending
SELECT (SELECT 1 FROM {{schema}}.events WHERE {{where}} ORDER BY transaction_id, global_position LIMIT 1) IS NOT NULL AS pending

-- name: head
SELECT transaction_id::text AS tx, global_position FROM {{schema}}.events WHERE {{horizon}} ORDER BY transaction_id DESC, global_position DESC LIMIT 1

-- name: count
SELECT count(*) AS n FROM {{schema}}.events WHERE {{horizon}}

-- name: now
SELECT clock_timestamp() AS now
