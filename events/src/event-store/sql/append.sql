-- The append functions (created with the schema, schema.ts) and the statements that call
-- them (append-sql.ts). {{schema}}: the schema, a quoted identifier.
--
-- claim_revisions is the start of both append functions, put in for {{claim_revisions}}:
-- it checks the expected revision against the stream row and moves the row on by v_count,
-- leaving the stream's previous last revision in v_current (-1 for a new stream). The stream
-- row is the lock that serialises appends to one stream. {{ids}}: the append's ids as a
-- uuid[] expression, for append_retry.
--
-- append_fast is the usual case (the stream exists, the expectation holds) as one statement:
-- it writes nothing and answers no row otherwise, and append_event then decides (new stream,
-- wrong revision, retry).

-- name: define_append_retry
-- What an append of p_ids already answered, when it is being retried: NULL when the first id
-- is not stored; raises ES400 when the ids are stored otherwise than this append would place
-- them, ES409 when the retry's expected revision does not fit where they were stored.
CREATE OR REPLACE FUNCTION {{schema}}.append_retry(p_stream_id text, p_expected bigint, p_ids uuid[])
RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  v_count bigint := cardinality(p_ids);
  v_first_stream text;
  v_first_revision bigint;
  v_current bigint;
  v_result text;
BEGIN
  SELECT e.stream_id, e.revision INTO v_first_stream, v_first_revision
    FROM {{schema}}.events e WHERE e.event_id = p_ids[1];
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF v_first_stream <> p_stream_id OR (
    SELECT array_agg(e.event_id ORDER BY e.revision) FROM {{schema}}.events e
     WHERE e.stream_id = p_stream_id AND e.revision >= v_first_revision AND e.revision < v_first_revision + v_count
  ) IS DISTINCT FROM p_ids THEN
    RAISE EXCEPTION 'event id % is already stored in stream % at revision %', p_ids[1], v_first_stream, v_first_revision
      USING ERRCODE = 'ES400';
  END IF;
  IF (p_expected >= 0 AND v_first_revision <> p_expected + 1) OR (p_expected = -1 AND v_first_revision <> 0) THEN
    -- From the events, not the streams row: the embedded store's single writer does not keep that row.
    SELECT max(e.revision) INTO v_current FROM {{schema}}.events e WHERE e.stream_id = p_stream_id;
    RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES409', DETAIL = coalesce(v_current, -1)::text;
  END IF;
  SELECT e.revision || '/' || e.transaction_id || '/' || e.global_position INTO v_result
    FROM {{schema}}.events e WHERE e.stream_id = p_stream_id AND e.revision = v_first_revision + v_count - 1;
  RETURN v_result;
END
$fn$

-- name: define_append_events
-- One round-trip appends, answering 'last revision/transaction id/global position'.
-- p_expected: >= 0 exact revision, -1 no stream, -2 any, -3 stream exists. Raises ES409
-- (detail = actual revision) on a revision mismatch that is not a retry, ES400 (through
-- append_retry) for ids stored elsewhere; either way nothing is written. A retry that the
-- revision check lets through fails on the event id's unique index; the caller then asks
-- append_retry. append_event is the same for one event, without arrays (most appends).
CREATE OR REPLACE FUNCTION {{schema}}.append_events(
  p_stream_id text, p_expected bigint, p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  v_count bigint := cardinality(p_ids);
  v_current bigint;
  v_result text;
BEGIN
{{claim_revisions}}

  WITH inserted AS (
    INSERT INTO {{schema}}.events (event_id, stream_id, revision, type, data, metadata)
    SELECT u.id, p_stream_id, v_current + u.ord, u.type, u.data, u.metadata
      FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS u(id, type, data, metadata, ord)
     ORDER BY u.ord
    RETURNING revision, transaction_id, global_position
  )
  SELECT i.revision || '/' || i.transaction_id || '/' || i.global_position INTO v_result
    FROM inserted i ORDER BY i.global_position DESC LIMIT 1;
  RETURN v_result;
END
$fn$

-- name: define_append_event
CREATE OR REPLACE FUNCTION {{schema}}.append_event(
  p_stream_id text, p_expected bigint, p_id uuid, p_type text, p_data jsonb, p_metadata jsonb
) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  v_count bigint := 1;
  v_current bigint;
  v_result text;
BEGIN
{{claim_revisions}}

  INSERT INTO {{schema}}.events (event_id, stream_id, revision, type, data, metadata)
  VALUES (p_id, p_stream_id, v_current + 1, p_type, p_data, p_metadata)
  RETURNING revision || '/' || transaction_id || '/' || global_position INTO v_result;
  RETURN v_result;
END
$fn$

-- name: claim_revisions
  -- Usual case, one statement: the stream exists and the expectation holds.
  UPDATE {{schema}}.streams st SET revision = st.revision + v_count
   WHERE st.stream_id = p_stream_id AND (p_expected IN (-2, -3) OR st.revision = p_expected)
   RETURNING st.revision - v_count INTO v_current;
  IF NOT FOUND THEN
    LOOP
      SELECT st.revision INTO v_current FROM {{schema}}.streams st WHERE st.stream_id = p_stream_id FOR UPDATE;
      IF NOT FOUND THEN v_current := -1; END IF;
      IF (p_expected = -1 AND v_current <> -1)
        OR (p_expected = -3 AND v_current = -1)
        OR (p_expected >= 0 AND v_current <> p_expected) THEN
        v_result := {{schema}}.append_retry(p_stream_id, p_expected, {{ids}});
        IF v_result IS NOT NULL THEN RETURN v_result; END IF;
        RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES409', DETAIL = v_current::text;
      END IF;
      IF v_current >= 0 THEN
        UPDATE {{schema}}.streams st SET revision = v_current + v_count WHERE st.stream_id = p_stream_id;
        EXIT;
      END IF;
      INSERT INTO {{schema}}.streams (stream_id, revision) VALUES (p_stream_id, v_count - 1)
        ON CONFLICT (stream_id) DO NOTHING;
      EXIT WHEN FOUND;
      -- A concurrent append created the stream and has committed since: check against it.
    END LOOP;
  END IF;

-- name: call_append_events
SELECT {{schema}}.append_events($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) AS r

-- name: call_append_event
SELECT {{schema}}.append_event($1, $2, $3::uuid, $4, $5::jsonb, $6::jsonb) AS r

-- name: append_fast
WITH claimed AS (
  UPDATE {{schema}}.streams st SET revision = st.revision + 1
   WHERE st.stream_id = $1 AND ($2::bigint IN (-2, -3) OR st.revision = $2::bigint)
   RETURNING st.revision
)
INSERT INTO {{schema}}.events (event_id, stream_id, revision, type, data, metadata)
SELECT $3::uuid, $1, c.revision, $4, $5::jsonb, $6::jsonb FROM claimed c
RETURNING revision || '/' || transaction_id || '/' || global_position AS r

-- name: call_append_retry
SELECT {{schema}}.append_retry($1, $2, $3::uuid[]) AS r
