-- What the PostgreSQL adapter sends besides the store's own statements (postgres.ts): a bulk
-- read wrapped for COPY ({{select}}, one of the store's `$all` reads).

-- name: copy_out
COPY ({{select}}) TO STDOUT
