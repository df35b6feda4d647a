/**
 * The event store's read floor (issue 22): every row of `$all`, with the store's own columns,
 * order and visibility horizon (events/src/event-store/sql.ts), in pages of FLOOR_PAGE, handed
 * back by the driver and dropped, nothing done per row. The rebuild and cold-start benches print
 * their figure beside it, measured in the same run.
 */

/** Rows per page of the read floor, as issue 22 defines it. */
export const FLOOR_PAGE = 10_000;

type Position = { tx: string; global_position: string | number };
/** One query of the driver at hand (pg's Client.query, PGlite's query): rows as objects. */
export type FloorQuery = (sql: string, params?: unknown[]) => Promise<{ rows: Position[] }>;

/** Reads every row of `<schema>.events` page by page; answers the rows read. */
export async function readAllPages(query: FloorQuery, schema: string): Promise<number> {
  const columns = `event_id::text AS event_id, stream_id, revision, transaction_id::text AS tx, global_position, type, data, metadata,
    floor(extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms`;
  const horizon = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
  const order = `ORDER BY transaction_id, global_position LIMIT ${FLOOR_PAGE}`;
  let rows = 0;
  let last: Position | undefined;
  for (;;) {
    const page = last
      ? await query(`SELECT ${columns} FROM ${schema}.events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) AND ${horizon} ${order}`, [
          last.tx,
          String(last.global_position),
        ])
      : await query(`SELECT ${columns} FROM ${schema}.events WHERE ${horizon} ${order}`);
    rows += page.rows.length;
    if (page.rows.length < FLOOR_PAGE) return rows;
    last = page.rows[page.rows.length - 1]!;
  }
}
