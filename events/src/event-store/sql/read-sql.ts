/**
 * The read statements (reads.sql): a stream's reads, the `$all` reads (as rows, as one JSON
 * value per page, or for COPY), the head position, the count and the pending probe of `$all`.
 *
 * `$all` is read in (transaction_id, global_position) order and only up to the oldest
 * transaction still running (`pg_snapshot_xmin`), so a transaction that commits late can never
 * slip in behind a position a subscriber has already passed.
 */
import type { GlobalPosition } from '../port';
import { named, type Statement } from './client';
import { sqlFile } from './sql-file';

const sql = sqlFile(new URL('./reads.sql', import.meta.url));

/** `$all` holds what committed below every transaction still running: see docs/architecture.md, "Event store". */
const HORIZON = sql('horizon');
/** Strictly after the position given as $1 (transaction id as text) and $2 (global position). */
const AFTER = afterPosition('$1', '$2');
const COLUMNS = sql('columns');
/** The fields of an event in a JSON page before and after its metadata, in the order fromJsonPage reads them. */
const JSON_FIELDS_BEFORE_METADATA = ['e.event_id', 'e.stream_id', 'e.revision', 'e.tx', 'e.global_position::text', 'e.type', 'e.data'];
const JSON_FIELDS_AFTER_METADATA = ['e.recorded_ms'];

/** Strictly after the position (transaction id as text, global position) given as SQL expressions. */
function afterPosition(tx: string, globalPosition: string): string {
  return sql('after_position', { tx, global_position: globalPosition });
}

/** COLUMNS with, instead of the whole metadata, each of `keys` as a column `m<i>` (metadata->'<key>'). */
function slimColumns(keys: readonly string[]): string {
  for (const key of keys) if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw new Error(`Not a metadata key to read: "${key}"`);
  const metadata = keys.map((key, i) => sql('metadata_key_column', { key, column: `m${i}` })).join(', ');
  return COLUMNS.replace('metadata,', keys.length > 0 ? `${metadata},` : '');
}

/**
 * The two `$all` reads (from the start: `$1` the limit; after a position: `$1`, `$2` as AFTER,
 * `$3` the limit) of schema `schema` (quoted), for the whole metadata (`keys` undefined) or only
 * some keys; as rows, or (`asJson`) each page as one JSON array of arrays (fromJsonPage), so the
 * driver hands back one value instead of every field of every row. The bench's read floor uses
 * the rows.
 */
export function allReads(schema: string, keys: readonly string[] | undefined, asJson: boolean): { fromStart: string; after: string } {
  const read = (where: string, limit: string) => {
    const rows = allRowsRead(schema, keys, where, limit);
    return asJson ? jsonPage(rows, keys ? keys.map((_, i) => `e.m${i}`) : ['e.metadata'], 'e.tx::xid8, e.global_position') : rows;
  };
  return { fromStart: read(HORIZON, '$1'), after: read(`${AFTER} AND ${HORIZON}`, '$3') };
}

/** The rows of a `$all` page: COLUMNS (or slimColumns) of the events matching `where`, in `$all` order, at most `limit`. */
function allRowsRead(schema: string, keys: readonly string[] | undefined, where: string, limit: string): string {
  return sql('all_page', { schema, columns: keys ? slimColumns(keys) : COLUMNS, where, limit });
}

/**
 * A `$all` page for `COPY ... TO STDOUT` (which takes no parameters): the position and the limit
 * written into the text. Both are numbers of ours (a bigint, a safe integer), never input.
 */
export function allRowsCopy(schema: string, keys: readonly string[] | undefined, after: GlobalPosition, limit: number): string {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError(`Not a page size: ${limit}`);
  const where = after.commit < 0n ? HORIZON : `${afterPosition(`'${after.commit.toString()}'`, after.prepare.toString())} AND ${HORIZON}`;
  return allRowsRead(schema, keys, where, String(limit));
}

/** A stream's reads ($1 stream id, $2 first revision, $3 how many), as rows or one JSON value (see jsonPage). */
function streamReads(schema: string, asJson: boolean): { forwards: string; backwards: string } {
  const forwards = sql('stream_forwards', { schema, columns: COLUMNS });
  const backwards = sql('stream_backwards', { schema, columns: COLUMNS });
  if (!asJson) return { forwards, backwards };
  return { forwards: jsonPage(forwards, ['e.metadata'], 'e.revision ASC'), backwards: jsonPage(backwards, ['e.metadata'], 'e.revision DESC') };
}

/** `rows` (a SELECT of COLUMNS or slimColumns) as one value `page`: a JSON array of arrays, read by fromJsonPage. */
function jsonPage(rows: string, metadata: readonly string[], order: string): string {
  const fields = [...JSON_FIELDS_BEFORE_METADATA, ...metadata, ...JSON_FIELDS_AFTER_METADATA];
  return sql('json_page', { fields: fields.join(', '), order, rows });
}

/** The reads of one schema, named once each as prepared statements. */
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

/** The reads of schema `schema` (quoted). */
export function readStatements(schema: string): ReadStatements {
  const reads = new Map<string, { fromStart: Statement; after: Statement }>();
  const namedStreamReads = (asJson: boolean) => {
    const { forwards, backwards } = streamReads(schema, asJson);
    return { forwards: named(forwards), backwards: named(backwards) };
  };
  return {
    stream: { rows: namedStreamReads(false), json: namedStreamReads(true) },
    all: (keys, asJson) => {
      const key = `${asJson ? 'json' : 'rows'}:${keys ? keys.join(',') : '*'}`;
      let made = reads.get(key);
      if (!made) {
        const { fromStart, after } = allReads(schema, keys, asJson);
        reads.set(key, (made = { fromStart: named(fromStart), after: named(after) }));
      }
      return made;
    },
    head: named(sql('head', { schema, horizon: HORIZON })),
    count: sql('count', { schema, horizon: HORIZON }),
    now: sql('now'),
    pendingFromStart: named(sql('pending', { schema, where: `NOT (${HORIZON})` })),
    pendingAfter: named(sql('pending', { schema, where: `${AFTER} AND NOT (${HORIZON})` })),
  };
}
