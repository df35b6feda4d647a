-- What the PostgreSQL adapter sends besides the store's own statements (postgres.ts): the
-- LISTEN of the dedicated connection ({{channel}}, a quoted identifier), the coalesced NOTIFY
-- after appends ($1 channel, $2 payload), and a bulk read wrapped for COPY ({{select}}).

-- name: listen
LISTEN {{channel}}

-- name: notify
SELECT pg_notify($1, $2)

-- name: copy_out
COPY ({{select}}) TO STDOUT
