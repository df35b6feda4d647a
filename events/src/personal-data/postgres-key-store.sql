-- Member keys in PostgreSQL (postgres-key-store.ts), in the event store's schema: {{schema}},
-- a quoted identifier. {{key_bytes}}: a key's length in bytes.
--
-- select_probed reads a key per id by a primary-key probe each (LATERAL with LIMIT 1, never
-- turned into a join that hashes the table); select_matched leaves the plan to the planner.

-- name: create_table
CREATE TABLE IF NOT EXISTS {{schema}}.member_keys (
  member_id text PRIMARY KEY,
  key bytea CHECK (key IS NULL OR length(key) = {{key_bytes}}),
  destroyed_at timestamptz
)

-- name: select_probed
SELECT wanted.id AS member_id, encode(k.key, 'hex') AS key FROM unnest($1::text[]) AS wanted(id)
  CROSS JOIN LATERAL (SELECT key FROM {{schema}}.member_keys WHERE member_id = wanted.id AND key IS NOT NULL LIMIT 1) k

-- name: select_matched
SELECT member_id, encode(key, 'hex') AS key FROM {{schema}}.member_keys WHERE member_id = ANY($1::text[]) AND key IS NOT NULL

-- name: create_keys
INSERT INTO {{schema}}.member_keys (member_id, key) SELECT m, decode(k, 'hex') FROM unnest($1::text[], $2::text[]) AS n(m, k) ON CONFLICT (member_id) DO NOTHING

-- name: destroy_key
INSERT INTO {{schema}}.member_keys (member_id, key, destroyed_at) VALUES ($1, NULL, now())
       ON CONFLICT (member_id) DO UPDATE SET key = NULL, destroyed_at = coalesce({{schema}}.member_keys.destroyed_at, now())

-- name: import_keys
INSERT INTO {{schema}}.member_keys (member_id, key, destroyed_at)
         SELECT m, decode(nullif(k, ''), 'hex'), CASE WHEN k = '' THEN now() END FROM unnest($1::text[], $2::text[]) AS n(m, k)
         ON CONFLICT (member_id) DO NOTHING
