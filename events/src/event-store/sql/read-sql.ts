/**
 * The read statements: a stream's reads, the `$all` reads (as rows, as one JSON value per page,
 * or for COPY), the head position, the count and the pending probe of `$all`.
 *
 * `$all` is read in (transaction_id, global_position) order and only up to the oldest
 * transaction still running (`pg_snapshot_xmin`), so a transaction that commits late can never
 * slip in behind a position a subscriber has already passed.
 */
import type { GlobalPosition } from '../port';
import { named, type Statement } from './client';

/** `$all` holds what committed below every transaction still running: see docs/architecture.md, "Event store". */
const HORIZON = `transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;
/** Strictly after the position given as $1 (transaction id as text) and $2 (global position). */
const AFTER = afterPosition('$1', '$2');

/** Strictly after the position (transaction id as text, global position) given as SQL expressions. */
function afterPosition(tx: string, globalPosition: string): string {
  return `(transaction_id, global_position) > (${tx}::text::xid8, ${globalPosition}::bigint)`;
}

const COLUMNS = `event_id::text AS event_id, stream_id, revision, transaction_id::text AS tx, global_position, type, data, metadata,
  floor(extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms`;

/** COLUMNS with, instead of the whole metadata, each of `keys` as a column `m<i>` (metadata->'<key>'). */
function slimColumns(keys: readonly string[]): string {
  for (const key of keys) if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw new Error(`Not a metadata key to read: "${key}"`);
  const metadata = keys.map((key, i) => `metadata->'${key}' AS m${i}`).join(', ');
  return COLUMNS.replace('metadata,', keys.length > 0 ? `${metadata},` : '');
}

/**
 * The two `$all` reads (from the start: `$1` the limit; after a position: `$1`, `$2` as AFTER,
 * `$3` the limit) of schema `s` (quoted), for the whole metadata (`keys` undefined) or only some
 * keys; as rows, or (`asJson`) each page as one JSON array of arrays (fromJsonPage), so the driver
 * hands back one value instead of every field of every row. The bench's read floor uses the rows.
 */
export function allReads(s: string, keys: readonly string[] | undefined, asJson: boolean): { fromStart: string; after: string } {
  const read = (where: string, limit: string) => {
    const rows = allRowsRead(s, keys, where, limit);
    return asJson ? jsonPage(rows, keys ? keys.map((_, i) => `e.m${i}`) : ['e.metadata'], 'e.tx::xid8, e.global_position') : rows;
  };
  return { fromStart: read(HORIZON, '$1'), after: read(`${AFTER} AND ${HORIZON}`, '$3') };
}

/** The rows of a `$all` page: COLUMNS (or slimColumns) of the events matching `where`, in `$all` order, at most `limit`. */
function allRowsRead(s: string, keys: readonly string[] | undefined, where: string, limit: string): string {
  return `SELECT ${keys ? slimColumns(keys) : COLUMNS} FROM ${s}.events WHERE ${where} ORDER BY transaction_id, global_position LIMIT ${limit}`;
}

/**
 * A `$all` page for `COPY ... TO STDOUT` (which takes no parameters): the position and the limit
 * written into the text. Both are numbers of ours (a bigint, a safe integer), never input.
 */
export function allRowsCopy(s: string, keys: readonly string[] | undefined, after: GlobalPosition, limit: number): string {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError(`Not a page size: ${limit}`);
  const where = after.commit < 0n ? HORIZON : `${afterPosition(`'${after.commit.toString()}'`, after.prepare.toString())} AND ${HORIZON}`;
  return allRowsRead(s, keys, where, String(limit));
}

/**
 * Whether an event matching `where` exists, looked for in $all order: the first match of an
 * ordered scan of the global order index. (An EXISTS let the planner expect many matches and
 * scan the whole table for one when the table had no statistics yet, 2 ms at 17,600 events.)
 */
function pendingSql(s: string, where: string): string {
  return `SELECT (SELECT 1 FROM ${s}.events WHERE ${where} ORDER BY transaction_id, global_position LIMIT 1) IS NOT NULL AS pending`;
}

/** A stream's reads ($1 stream id, $2 first revision, $3 how many), as rows or one JSON value (see jsonPage). */
function streamReads(s: string, asJson: boolean): { forwards: string; backwards: string } {
  const read = (where: string, order: string) => {
    const rows = `SELECT ${COLUMNS} FROM ${s}.events WHERE stream_id = $1 AND ${where} ORDER BY revision ${order} LIMIT $3`;
    return asJson ? jsonPage(rows, ['e.metadata'], `e.revision ${order}`) : rows;
  };
  return { forwards: read('revision >= $2', 'ASC'), backwards: read('revision <= $2', 'DESC') };
}

/** `rows` (a SELECT of COLUMNS or slimColumns) as one value `page`: a JSON array of arrays, read by fromJsonPage. */
function jsonPage(rows: string, metadata: readonly string[], order: string): string {
  const fields = ['e.event_id', 'e.stream_id', 'e.revision', 'e.tx', 'e.global_position::text', 'e.type', 'e.data', ...metadata, 'e.recorded_ms'];
  return `SELECT coalesce(json_agg(json_build_array(${fields.join(', ')}) ORDER BY ${order}), '[]') AS page FROM (${rows}) e`;
}

/** The reads of schema `s` (quoted), named once each as prepared statements. */
export interface ReadStatements {
  /** A stream's reads, as rows and as JSON pages (pagesAsJson). */
  stream: { rows: { forwards: Statement; backwards: Statement }; json: { forwards: Statement; backwards: Statement } };
  /** The `$all` reads for the whole metadata (undefined) or a set of its keys (ReadAllOptions.metadataKeys), as rows or JSON pages, made once each. */
  all: (keys: readonly string[] | undefined, asJson: boolean) => { fromStart: Statement; after: Statement };
  head: Statement;
  count: string;
  now: string;
  pendingFromStart: Statement;
  pendingAfter: Statement;
}

export function readStatements(s: string): ReadStatements {
  const reads = new Map<string, { fromStart: Statement; after: Statement }>();
  const namedStreamReads = (asJson: boolean) => {
    const { forwards, backwards } = streamReads(s, asJson);
    return { forwards: named(forwards), backwards: named(backwards) };
  };
  return {
    stream: { rows: namedStreamReads(false), json: namedStreamReads(true) },
    all: (keys, asJson) => {
      const key = `${asJson ? 'json' : 'rows'}:${keys ? keys.join(',') : '*'}`;
      let made = reads.get(key);
      if (!made) {
        const { fromStart, after } = allReads(s, keys, asJson);
        reads.set(key, (made = { fromStart: named(fromStart), after: named(after) }));
      }
      return made;
    },
    head: named(`SELECT transaction_id::text AS tx, global_position FROM ${s}.events WHERE ${HORIZON} ORDER BY transaction_id DESC, global_position DESC LIMIT 1`),
    count: `SELECT count(*) AS n FROM ${s}.events WHERE ${HORIZON}`,
    now: 'SELECT clock_timestamp() AS now',
    pendingFromStart: named(pendingSql(s, `NOT (${HORIZON})`)),
    pendingAfter: named(pendingSql(s, `${AFTER} AND NOT (${HORIZON})`)),
  };
}
