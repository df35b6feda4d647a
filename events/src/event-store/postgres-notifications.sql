-- The PostgreSQL adapter's wake-ups between processes (postgres-notifications.ts): the LISTEN
-- of the dedicated connection ({{channel}}, a quoted identifier) and the coalesced NOTIFY after
-- appends ($1 channel, $2 payload).

-- name: listen
LISTEN {{channel}}

-- name: notify
SELECT pg_notify($1, $2)
