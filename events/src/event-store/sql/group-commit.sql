-- append_batch (group-commit.ts): appends to distinct streams in one transaction, with a few
-- set-based statements (a loop of statements per append cost the server as much as separate
-- appends). Per append: p_streams (distinct), p_expected (as append_event takes it); per
-- event, in append order: p_appends (its append's index, 1-based), p_ids, p_types, p_data,
-- p_metadata. Answers one item per append, joined by ',': 'last revision/transaction id/global
-- position' (appended), 'E409:<actual revision>' (the expectation did not hold; nothing
-- written for it) or 'F' (some of its ids are stored already, or its new stream was created
-- concurrently: the caller decides it alone).
--
-- Generic plans: its statements are planned once per connection, not on every call. Every
-- statement here reaches its rows by key; a plan made while the tables were still small would
-- otherwise scan them whole for as long as the connection lives.
--
-- Created with the schema (schema.ts). {{schema}}: the schema, a quoted identifier.

-- name: define_append_batch
CREATE OR REPLACE FUNCTION {{schema}}.append_batch(
  p_streams text[], p_expected bigint[], p_appends int[], p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
DECLARE
  v_current bigint[];
  v_answers text[];
  v_stored uuid[];
  v_retried int[];
BEGIN
  -- Appends with ids stored already (retries, reuses; rare) go to the single append path. Probed
  -- with = ANY on the unique index: the planner cannot turn it into a scan of the whole table.
  SELECT array_agg(e.event_id) INTO v_stored FROM {{schema}}.events e WHERE e.event_id = ANY (p_ids);
  IF v_stored IS NOT NULL THEN
    SELECT array_agg(DISTINCT u.a) INTO v_retried FROM unnest(p_appends, p_ids) AS u(a, id) WHERE u.id = ANY (v_stored);
  END IF;

  -- Lock the existing stream rows in stream id (byte) order, so that batches of several
  -- processes never wait for each other in a cycle; read each stream's revision under the lock
  -- and decide each append on it. (Streams are distinct: should one repeat, its events would
  -- clash on the (stream_id, revision) index and the batch fail as a whole.)
  WITH locked AS MATERIALIZED (
    SELECT st.stream_id, st.revision FROM {{schema}}.streams st
     WHERE st.stream_id = ANY (p_streams) ORDER BY st.stream_id COLLATE "C" FOR UPDATE
  )
  SELECT array_agg(coalesce(l.revision, -1) ORDER BY b.ord),
         array_agg(CASE
           WHEN b.ord = ANY (v_retried) THEN 'F'
           WHEN (b.expected = -1 AND l.revision IS NOT NULL) OR (b.expected = -3 AND l.revision IS NULL)
             OR (b.expected >= 0 AND coalesce(l.revision, -1) <> b.expected) THEN 'E409:' || coalesce(l.revision, -1)
           END ORDER BY b.ord)
    INTO v_current, v_answers
    FROM unnest(p_streams, p_expected) WITH ORDINALITY AS b(stream, expected, ord)
    LEFT JOIN locked l ON l.stream_id = b.stream;

  -- Then, in one statement: move the existing streams on (their rows are locked already),
  -- create the new ones in the same order as above, insert the events in arrival order (global
  -- positions follow it, as append_events relies on) and answer. A new stream created meanwhile
  -- by a committed writer is left to the single append path ('F'), which checks against it.
  WITH sizes AS (
    SELECT u.a, count(*) AS n FROM unnest(p_appends) AS u(a) GROUP BY u.a
  ), updated AS (
    UPDATE {{schema}}.streams st SET revision = v_current[z.a] + z.n FROM sizes z
     WHERE st.stream_id = p_streams[z.a] AND v_answers[z.a] IS NULL AND v_current[z.a] >= 0
    RETURNING z.a
  ), created AS (
    INSERT INTO {{schema}}.streams (stream_id, revision)
    SELECT p_streams[z.a], z.n - 1 FROM sizes z
     WHERE v_answers[z.a] IS NULL AND v_current[z.a] = -1
     ORDER BY p_streams[z.a] COLLATE "C"
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING stream_id
  ), claimed AS (
    SELECT x.a FROM updated x
    UNION ALL
    SELECT b.ord FROM created c JOIN unnest(p_streams) WITH ORDINALITY AS b(stream, ord) ON b.stream = c.stream_id
  ), inserted AS (
    INSERT INTO {{schema}}.events (event_id, stream_id, revision, type, data, metadata)
    SELECT u.id, p_streams[u.a], v_current[u.a] + row_number() OVER (PARTITION BY u.a ORDER BY u.k), u.type, u.data, u.metadata
      FROM unnest(p_appends, p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS u(a, id, type, data, metadata, k)
     WHERE u.a IN (SELECT x.a FROM claimed x)
     ORDER BY u.k
    RETURNING stream_id, revision, global_position
  ), last AS (
    SELECT i.stream_id, max(i.revision) AS revision, max(i.global_position) AS position FROM inserted i GROUP BY i.stream_id
  )
  SELECT array_agg(coalesce(v_answers[b.ord], CASE WHEN l.stream_id IS NULL THEN 'F' ELSE l.revision || '/' || pg_current_xact_id() || '/' || l.position END) ORDER BY b.ord)
    INTO v_answers
    FROM unnest(p_streams) WITH ORDINALITY AS b(stream, ord) LEFT JOIN last l ON l.stream_id = b.stream;
  RETURN array_to_string(v_answers, ',');
END
$fn$

-- name: call_append_batch
SELECT {{schema}}.append_batch($1::text[], $2::bigint[], $3::int[], $4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[]) AS r
