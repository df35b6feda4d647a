-- The event store's schema, created on every open by schemaSql (schema.ts), which runs
-- these in this order, then the append functions (append.sql) and append_batch
-- (group-commit.sql), each closed by ';', in one transaction under an advisory lock (setup).
-- Every statement is idempotent.
--
-- Placeholders: {{schema}} the schema (quoted identifier); {{schema_name}} its name as
-- written inside a string literal (checked by assertSchemaName); {{table}} and {{index}}
-- the events table and its $all order index ({{schema}}.events and events_global_order here;
-- the event-store bench's raw-INSERT table takes the same shape under names of its own);
-- {{ddl}} the statements setup runs.

-- name: create_schema
CREATE SCHEMA IF NOT EXISTS {{schema}}

-- name: streams_table
CREATE TABLE IF NOT EXISTS {{schema}}.streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
)

-- name: events_table
CREATE TABLE IF NOT EXISTS {{table}} (
  global_position bigserial PRIMARY KEY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id uuid NOT NULL UNIQUE,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream_id, revision)
)

-- name: events_order_index
CREATE INDEX IF NOT EXISTS {{index}} ON {{table}} (transaction_id, global_position)

-- name: drop_row_returning_functions
-- Migration: earlier versions returned rows; a function's result type cannot be replaced.
DO $mig$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = '{{schema_name}}' AND p.proname IN ('append_events', 'append_retry') AND p.prorettype <> 'text'::regtype
  LOOP
    EXECUTE 'DROP FUNCTION ' || f;
  END LOOP;
END $mig$

-- name: setup
BEGIN; SELECT pg_advisory_xact_lock(hashtext('event-store:{{schema_name}}')); {{ddl}} COMMIT;
