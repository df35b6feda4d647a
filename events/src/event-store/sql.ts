/**
 * The SQL event store shared by the PGlite and PostgreSQL adapters: one schema, the same
 * append functions, one set of queries. Each adapter supplies a `SqlClient` (how to run a query) and,
 * for PostgreSQL, cross-process wake-ups (LISTEN/NOTIFY).
 *
 * Global order: every row stores the id of the transaction that wrote it (`transaction_id`,
 * xid8) and a sequence number (`global_position`). $all is read in (transaction_id,
 * global_position) order and only up to the oldest transaction still running
 * (`pg_snapshot_xmin`), so a transaction that commits late can never slip in behind a position
 * a subscriber has already passed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import {
  comparePositions,
  EventStoreUnavailableError,
  START,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type GlobalPosition,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from './port';
import { GroupCommit, groupCommitSql, type QueuedAppend } from './group-commit';
import { SingleWriterAppends } from './single-writer';

/** The few pino methods the adapters use; a pino `Logger` fits. */
export interface EventStoreLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SqlClient {
  /**
   * Runs `text`. With a `name`, a client that can keeps it as that prepared statement on each
   * connection, parsed and planned once there rather than on every call (others ignore it).
   */
  query<R = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<{ rows: R[] }>;
  /**
   * Optional fast path for a hot statement: runs `text` as the named prepared statement `name`
   * (parsed and planned once) with text parameters, answering the first row's columns as text
   * (undefined: no row). Errors carry `code` and `detail` like `query`'s.
   */
  queryPrepared?(name: string, text: string, params: (string | null)[]): Promise<(string | null)[] | undefined>;
  /**
   * Optional bulk read: runs `COPY (<text>) TO STDOUT` (text format, no parameters) and answers
   * its output. Errors carry `code` like `query`'s; a connection failure reads as one.
   */
  copyOut?(select: string): Promise<string>;
}

/** A statement the store runs often, under a name of its own (SqlClient.query's `name`). */
interface Statement {
  name: string;
  text: string;
}

/**
 * `text` under a name made from it: stores of other schemas or options on the same connections
 * (tests, tools) never give one name two texts, which the driver refuses.
 */
function named(text: string): Statement {
  return { name: `es_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
}

/** Thrown when event ids of an append are already stored somewhere else than this append would put them. */
export class DuplicateEventIdError extends Error {
  constructor(
    readonly streamId: string,
    detail: string,
  ) {
    super(`Event ids already used elsewhere (append to "${streamId}"): ${detail}`);
    this.name = 'DuplicateEventIdError';
  }
}

/** Expected revision as the append function's bigint argument. */
const EXPECT_NO_STREAM = -1;
const EXPECT_ANY = -2;
const EXPECT_STREAM_EXISTS = -3;

function encodeExpected(expected: ExpectedRevision): number {
  if (expected === 'any') return EXPECT_ANY;
  if (expected === 'no_stream') return EXPECT_NO_STREAM;
  if (expected === 'stream_exists') return EXPECT_STREAM_EXISTS;
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new RangeError(`Expected revision must be 'any', 'no_stream', 'stream_exists' or a revision >= 0, got ${String(expected)}`);
  }
  return expected;
}

function decodeExpected(expected: number): ExpectedRevision {
  if (expected === EXPECT_ANY) return 'any';
  if (expected === EXPECT_NO_STREAM) return 'no_stream';
  if (expected === EXPECT_STREAM_EXISTS) return 'stream_exists';
  return expected;
}

/** Double-quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Names checked before they reach SQL text (schema names come from configuration and tests). */
export function assertSchemaName(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`Event store schema name must match [a-z_][a-z0-9_]*, got "${name}"`);
  }
}

/** Idempotent: run on every open, under an advisory lock so concurrent opens do not race. */
export function schemaSql(schema: string): string {
  const s = quoteIdent(schema);
  return `
CREATE SCHEMA IF NOT EXISTS ${s};

CREATE TABLE IF NOT EXISTS ${s}.streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS ${s}.events (
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
);

CREATE INDEX IF NOT EXISTS events_global_order ON ${s}.events (transaction_id, global_position);

-- Migration: earlier versions returned rows; a function's result type cannot be replaced.
DO $mig$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = '${schema}' AND p.proname IN ('append_events', 'append_retry') AND p.prorettype <> 'text'::regtype
  LOOP
    EXECUTE 'DROP FUNCTION ' || f;
  END LOOP;
END $mig$;

-- What an append of p_ids already answered, when it is being retried: NULL when the first id
-- is not stored; raises ES400 when the ids are stored otherwise than this append would place
-- them, ES409 when the retry's expected revision does not fit where they were stored.
CREATE OR REPLACE FUNCTION ${s}.append_retry(p_stream_id text, p_expected bigint, p_ids uuid[])
RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  v_count bigint := cardinality(p_ids);
  v_first_stream text;
  v_first_revision bigint;
  v_current bigint;
  v_result text;
BEGIN
  SELECT e.stream_id, e.revision INTO v_first_stream, v_first_revision
    FROM ${s}.events e WHERE e.event_id = p_ids[1];
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF v_first_stream <> p_stream_id OR (
    SELECT array_agg(e.event_id ORDER BY e.revision) FROM ${s}.events e
     WHERE e.stream_id = p_stream_id AND e.revision >= v_first_revision AND e.revision < v_first_revision + v_count
  ) IS DISTINCT FROM p_ids THEN
    RAISE EXCEPTION 'event id % is already stored in stream % at revision %', p_ids[1], v_first_stream, v_first_revision
      USING ERRCODE = 'ES400';
  END IF;
  IF (p_expected >= 0 AND v_first_revision <> p_expected + 1) OR (p_expected = -1 AND v_first_revision <> 0) THEN
    -- From the events, not the streams row: the embedded store's single writer does not keep that row.
    SELECT max(e.revision) INTO v_current FROM ${s}.events e WHERE e.stream_id = p_stream_id;
    RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES409', DETAIL = coalesce(v_current, -1)::text;
  END IF;
  SELECT e.revision || '/' || e.transaction_id || '/' || e.global_position INTO v_result
    FROM ${s}.events e WHERE e.stream_id = p_stream_id AND e.revision = v_first_revision + v_count - 1;
  RETURN v_result;
END
$fn$;

-- One round-trip appends, answering 'last revision/transaction id/global position'.
-- p_expected: >= 0 exact revision, -1 no stream, -2 any, -3 stream exists. Raises ES409
-- (detail = actual revision) on a revision mismatch that is not a retry, ES400 (through
-- append_retry) for ids stored elsewhere; either way nothing is written. A retry that the
-- revision check lets through fails on the event id's unique index; the caller then asks
-- append_retry. append_event is the same for one event, without arrays (most appends).
CREATE OR REPLACE FUNCTION ${s}.append_events(
  p_stream_id text, p_expected bigint, p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  v_count bigint := cardinality(p_ids);
  v_current bigint;
  v_result text;
BEGIN
${claimRevisionsSql(s, 'p_ids')}
  WITH inserted AS (
    INSERT INTO ${s}.events (event_id, stream_id, revision, type, data, metadata)
    SELECT u.id, p_stream_id, v_current + u.ord, u.type, u.data, u.metadata
      FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS u(id, type, data, metadata, ord)
     ORDER BY u.ord
    RETURNING revision, transaction_id, global_position
  )
  SELECT i.revision || '/' || i.transaction_id || '/' || i.global_position INTO v_result
    FROM inserted i ORDER BY i.global_position DESC LIMIT 1;
  RETURN v_result;
END
$fn$;

CREATE OR REPLACE FUNCTION ${s}.append_event(
  p_stream_id text, p_expected bigint, p_id uuid, p_type text, p_data jsonb, p_metadata jsonb
) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  v_count bigint := 1;
  v_current bigint;
  v_result text;
BEGIN
${claimRevisionsSql(s, 'ARRAY[p_id]')}
  INSERT INTO ${s}.events (event_id, stream_id, revision, type, data, metadata)
  VALUES (p_id, p_stream_id, v_current + 1, p_type, p_data, p_metadata)
  RETURNING revision || '/' || transaction_id || '/' || global_position INTO v_result;
  RETURN v_result;
END
$fn$;
${groupCommitSql(s)}`;
}

/**
 * The start of both append functions: checks the expected revision against the stream row and
 * moves the row on by v_count, leaving the stream's previous last revision in v_current (-1 for
 * a new stream). The stream row is the lock that serialises appends to one stream.
 */
function claimRevisionsSql(s: string, ids: string): string {
  return `  -- Usual case, one statement: the stream exists and the expectation holds.
  UPDATE ${s}.streams st SET revision = st.revision + v_count
   WHERE st.stream_id = p_stream_id AND (p_expected IN (-2, -3) OR st.revision = p_expected)
   RETURNING st.revision - v_count INTO v_current;
  IF NOT FOUND THEN
    LOOP
      SELECT st.revision INTO v_current FROM ${s}.streams st WHERE st.stream_id = p_stream_id FOR UPDATE;
      IF NOT FOUND THEN v_current := -1; END IF;
      IF (p_expected = -1 AND v_current <> -1)
        OR (p_expected = -3 AND v_current = -1)
        OR (p_expected >= 0 AND v_current <> p_expected) THEN
        v_result := ${s}.append_retry(p_stream_id, p_expected, ${ids});
        IF v_result IS NOT NULL THEN RETURN v_result; END IF;
        RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES409', DETAIL = v_current::text;
      END IF;
      IF v_current >= 0 THEN
        UPDATE ${s}.streams st SET revision = v_current + v_count WHERE st.stream_id = p_stream_id;
        EXIT;
      END IF;
      INSERT INTO ${s}.streams (stream_id, revision) VALUES (p_stream_id, v_count - 1)
        ON CONFLICT (stream_id) DO NOTHING;
      EXIT WHEN FOUND;
      -- A concurrent append created the stream and has committed since: check against it.
    END LOOP;
  END IF;
`;
}

interface EventRow {
  event_id: string;
  stream_id: string;
  revision: string | number | bigint;
  tx: string;
  global_position: string | number | bigint;
  type: string;
  data: unknown;
  metadata: Record<string, unknown> | null;
  /** Milliseconds since the epoch (a number parses far faster than a timestamp's text). */
  recorded_ms: string | number;
}

/** 'last revision/transaction id/global position', or NULL from append_retry when not a retry. */
interface AppendRow {
  r: string | null;
}

const toNumber = (v: string | number | bigint) => Number(v);

function toEvent(row: EventRow, metadata: Record<string, unknown> = row.metadata ?? {}): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: toNumber(row.revision),
    position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
    type: row.type,
    data: row.data,
    metadata,
    recordedAt: new Date(Number(row.recorded_ms)),
  };
}

/** The metadata of a read that kept only `keys`: the i-th key's value is `valueAt(i)`; absent ones are left out. */
function pickMetadata(keys: readonly string[], valueAt: (i: number) => unknown): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const value = valueAt(i);
    if (value !== null && value !== undefined) metadata[keys[i]!] = value;
  }
  return metadata;
}

/** An event of a `$all` read that kept only some metadata keys, each in its own column (slimColumns). */
function toSlimEvent(row: EventRow & Record<string, unknown>, keys: readonly string[]): RecordedEvent {
  return toEvent(row, pickMetadata(keys, (i) => row[`m${i}`]));
}

/** One event of a page read as JSON (jsonPage): the row's columns in order, metadata as asked. */
type JsonPageEvent = [id: string, streamId: string, revision: number, tx: string, globalPosition: string, type: string, data: unknown, ...rest: unknown[]];

/** The `page` value of a jsonPage read's one row. */
function pageOf(rows: unknown[]): JsonPageEvent[] {
  return (rows[0] as { page: JsonPageEvent[] }).page;
}

/** The events of a page read as one JSON array; `keys`: the metadata keys asked for (else the whole metadata). */
function fromJsonPage(page: JsonPageEvent[], keys: readonly string[] | undefined): RecordedEvent[] {
  return page.map((e) => {
    const metadata = keys ? pickMetadata(keys, (i) => e[7 + i]) : ((e[7] as Record<string, unknown> | null) ?? {});
    return {
      id: e[0],
      streamId: e[1],
      revision: e[2],
      position: { commit: BigInt(e[3]), prepare: BigInt(e[4]) },
      type: e[5],
      data: e[6],
      metadata,
      recordedAt: new Date(e[e.length - 1] as number),
    };
  });
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE']);

/** True for failures that mean "the database cannot be reached" rather than "the request is wrong". */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_ERROR_CODES.has(code)) return true;
    // 08: connection exception; 57P01-57P03: server shutting down or not yet accepting.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isConnectionFailure);
  // node-postgres: a dropped connection, no pooled connection within connectionTimeoutMillis, or
  // no answer within query_timeout (a partition).
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
    error.message,
  );
}

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
function allRowsCopy(s: string, keys: readonly string[] | undefined, after: GlobalPosition, limit: number): string {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError(`Not a page size: ${limit}`);
  const where = after.commit < 0n ? HORIZON : `${afterPosition(`'${after.commit.toString()}'`, after.prepare.toString())} AND ${HORIZON}`;
  return allRowsRead(s, keys, where, String(limit));
}

/** One field of COPY's text format as its value: `\N` is NULL; backslash escapes undone. */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c] ?? c);
}

/** What COPY TO writes after a backslash (PostgreSQL's CopyAttributeOutText), and the character it stands for. */
const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** The events of a `$all` page read by COPY (allRowsCopy's columns, in order), as readAll answers them. */
function fromCopyText(text: string, keys: readonly string[] | undefined): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const json = (field: string): unknown => {
    const value = copyField(field);
    return value === null ? null : JSON.parse(value);
  };
  const metadataCount = keys ? keys.length : 1;
  for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    const f = text.slice(start, end).split('\t');
    const metadata = keys ? pickMetadata(keys, (i) => json(f[7 + i]!)) : ((json(f[7]!) as Record<string, unknown> | null) ?? {});
    events.push({
      id: f[0]!,
      streamId: copyField(f[1]!)!,
      revision: Number(f[2]),
      position: { commit: BigInt(f[3]!), prepare: BigInt(f[4]!) },
      type: copyField(f[5]!)!,
      data: json(f[6]!),
      metadata,
      recordedAt: new Date(Number(f[7 + metadataCount])),
    });
  }
  return events;
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

export interface SqlEventStoreOptions {
  kind: string;
  client: SqlClient;
  schema: string;
  logger?: EventStoreLogger;
  /** Poll interval when no wake-up arrives (a missed notification, a transaction held open elsewhere). */
  pollIntervalMs?: number;
  /**
   * A caught-up subscription woken by an append waits this long before reading, so the appends
   * acknowledged meanwhile come in one read and one handler call instead of one each. Default 0.
   */
  wakeGatherMs?: number;
  /** Releases the adapter's connections; called once by close(). */
  release: () => Promise<void>;
  /**
   * Called once, when this process's first subscription starts: the adapter then begins to hear
   * other processes' appends (PostgreSQL's LISTEN). A process that only appends and reads (the
   * command side, the query side) never listens, so no notification wakes its connection.
   */
  onFirstSubscription?: () => void;
  /**
   * This process is the database's only writer (PGlite, kept so by its lock file): appends go
   * through `SingleWriterAppends` (revisions in memory, plain INSERTs, group commit) instead of
   * the append functions that lock a per-stream row. Needs `client.queryPrepared`. Default false.
   */
  singleWriter?: boolean;
  /**
   * `$all` pages and bounded stream reads come back as one JSON value each instead of rows
   * (jsonPage). For PGlite, whose client turns every field of every row into its own buffer and
   * string, a page of 5,000 events reads in about a third of the time; PostgreSQL's server would
   * pay for it instead. Default false.
   */
  pagesAsJson?: boolean;
  /**
   * Appends that arrive while another append is in flight go out together, as one statement and
   * one transaction (`group-commit.ts`). Needs `client.queryPrepared`; not with `singleWriter`.
   * Default false.
   */
  groupCommit?: boolean;
}

const DEFAULT_BATCH = 500;
/** A `readAll` asking for this many events or more is read in bulk (readPage). */
const COPY_PAGE_MIN = 1_000;
/** The largest `$all` read sent back as one JSON value (pagesAsJson): ~500 bytes an event. */
const JSON_PAGE_MAX = 50_000;

/** Which subscription's handler is running, so stop() called from inside it does not wait for itself. */
const handlerContext = new AsyncLocalStorage<object>();

export class SqlEventStore implements EventStore {
  readonly kind: string;
  /** The store's own connection, for tools that must measure or inspect the same database (bench). */
  readonly client: SqlClient;
  /** The schema its tables live in (unquoted). */
  readonly schema: string;
  private readonly logger: EventStoreLogger | undefined;
  private readonly pollIntervalMs: number;
  private readonly wakeGatherMs: number;
  private readonly pagesAsJson: boolean;
  private readonly release: () => Promise<void>;
  private onFirstSubscription: (() => void) | undefined;
  private readonly sql: {
    append: string;
    appendOne: string;
    appendFast: string;
    appendRetry: string;
    /** A stream's reads, as rows and as JSON pages (pagesAsJson). */
    stream: { rows: { forwards: Statement; backwards: Statement }; json: { forwards: Statement; backwards: Statement } };
    /** The `$all` reads for the whole metadata (undefined) or a set of its keys (ReadAllOptions.metadataKeys), as rows or JSON pages, made once each. */
    all: (keys: readonly string[] | undefined, asJson: boolean) => { fromStart: Statement; after: Statement };
    head: Statement;
    count: string;
    pendingFromStart: Statement;
    pendingAfter: Statement;
  };
  private readonly wakeListeners = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly appendListeners = new Set<() => void>();
  private closing: Promise<void> | undefined;
  private readonly singleWriter: SingleWriterAppends | undefined;
  private readonly groupCommit: GroupCommit | undefined;

  constructor(options: SqlEventStoreOptions) {
    if (options.singleWriter) {
      const { client } = options;
      if (!client.queryPrepared) throw new Error('singleWriter needs a client with queryPrepared');
      this.singleWriter = new SingleWriterAppends({ query: client.query.bind(client), queryPrepared: client.queryPrepared.bind(client) }, quoteIdent(options.schema));
    }
    if (options.groupCommit && !options.singleWriter) {
      const { client } = options;
      if (!client.queryPrepared) throw new Error('groupCommit needs a client with queryPrepared');
      const queryPrepared = client.queryPrepared.bind(client);
      this.groupCommit = new GroupCommit({
        schema: quoteIdent(options.schema),
        sendBatch: async (text, params) => (await queryPrepared('es_append_batch', text, params))?.[0],
        sendAlone: async (a) => ({ result: (await this.appendAlone(a.streamId, a.expected, a.events, decodeExpected(a.expected))) ?? '' }),
        failsAll: (error, a) => {
          // Unreachable or closed: one by one would only fail the same way, each after a timeout.
          const mapped = this.mapError(error, `append to "${a.streamId}"`);
          return mapped instanceof EventStoreUnavailableError ? mapped : undefined;
        },
        onFallback: (error, appends) => this.logger?.warn({ err: error, appends }, 'event store: group commit batch failed, sending its appends one by one'),
      });
    }
    this.kind = options.kind;
    this.client = options.client;
    this.schema = options.schema;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.wakeGatherMs = options.wakeGatherMs ?? 0;
    this.pagesAsJson = options.pagesAsJson ?? false;
    this.release = options.release;
    this.onFirstSubscription = options.onFirstSubscription;
    const s = quoteIdent(options.schema);
    const reads = new Map<string, { fromStart: Statement; after: Statement }>();
    const namedStreamReads = (asJson: boolean) => {
      const { forwards, backwards } = streamReads(s, asJson);
      return { forwards: named(forwards), backwards: named(backwards) };
    };
    this.sql = {
      append: `SELECT ${s}.append_events($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) AS r`,
      appendOne: `SELECT ${s}.append_event($1, $2, $3::uuid, $4, $5::jsonb, $6::jsonb) AS r`,
      appendFast: `WITH claimed AS (
  UPDATE ${s}.streams st SET revision = st.revision + 1
   WHERE st.stream_id = $1 AND ($2::bigint IN (-2, -3) OR st.revision = $2::bigint)
   RETURNING st.revision
)
INSERT INTO ${s}.events (event_id, stream_id, revision, type, data, metadata)
SELECT $3::uuid, $1, c.revision, $4, $5::jsonb, $6::jsonb FROM claimed c
RETURNING revision || '/' || transaction_id || '/' || global_position AS r`,
      appendRetry: `SELECT ${s}.append_retry($1, $2, $3::uuid[]) AS r`,
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
      pendingFromStart: named(pendingSql(s, `NOT (${HORIZON})`)),
      pendingAfter: named(pendingSql(s, `${AFTER} AND NOT (${HORIZON})`)),
    };
  }

  /** Wakes this process's subscriptions; adapters call it on a notification from another process. */
  wake(): void {
    for (const listener of [...this.wakeListeners]) listener();
  }

  /** Adapters hook here to tell other processes (NOTIFY) after each acknowledged append. */
  onAppended(listener: () => void): void {
    this.appendListeners.add(listener);
  }

  async append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision = 'any'): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError(`Append to "${streamId}" needs at least one event`);
    const expected = encodeExpected(expectedRevision);
    const result = this.singleWriter
      ? await this.answeringRetries(streamId, expected, events, expectedRevision, () => this.appendSingleWriter(streamId, expected, events, expectedRevision))
      : this.groupCommit
        ? await this.appendGrouped({ streamId, expected, events }, expectedRevision)
        : await this.appendAlone(streamId, expected, events, expectedRevision);
    const parts = /^(\d+)\/(\d+)\/(\d+)$/.exec(result ?? '');
    if (!parts) throw new Error(`Append to "${streamId}" returned "${String(result)}"`);
    this.wake();
    for (const listener of this.appendListeners) listener();
    return { nextExpectedRevision: Number(parts[1]), position: { commit: BigInt(parts[2]!), prepare: BigInt(parts[3]!) } };
  }

  /** Through the group commit: sent at once when nothing is in flight, else with what queued meanwhile. */
  private async appendGrouped(append: QueuedAppend, expectedRevision: ExpectedRevision): Promise<string> {
    const outcome = await this.groupCommit!.append(append);
    if ('refused' in outcome) throw new WrongExpectedRevisionError(append.streamId, expectedRevision, outcome.refused);
    return outcome.result;
  }

  /** One append on its own: one round trip (two for a new stream or a conflict). */
  private appendAlone(streamId: string, expected: number, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<string | null | undefined> {
    return this.answeringRetries(streamId, expected, events, expectedRevision, () => this.appendNow(streamId, expected, events));
  }

  /** Runs `attempt`; when an event id is stored already, tells a retry (answered) from a reuse (refused). */
  private async answeringRetries(
    streamId: string,
    expected: number,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
    attempt: () => Promise<string | null | undefined>,
  ): Promise<string | null | undefined> {
    let result: string | null | undefined;
    try {
      result = await attempt();
    } catch (error) {
      if ((error as { code?: unknown }).code !== '23505') throw this.appendError(error, streamId, expectedRevision);
      // An event id is stored already: a retry of an acknowledged append (answered as the first
      // time) or ids reused elsewhere (refused).
      try {
        result = (await this.client.query<AppendRow>(this.sql.appendRetry, [streamId, expected, events.map((e) => e.id)])).rows[0]?.r;
      } catch (retryError) {
        throw this.appendError(retryError, streamId, expectedRevision);
      }
      if (!result) throw new DuplicateEventIdError(streamId, (error as Error).message);
    }
    return result;
  }

  private async appendNow(streamId: string, expected: number, events: NewEvent[]): Promise<string | null | undefined> {
    const single = events.length === 1 ? events[0]! : undefined;
    if (single && this.client.queryPrepared) {
      const params = [streamId, String(expected), single.id, single.type, JSON.stringify(single.data ?? null), JSON.stringify(single.metadata ?? {})];
      // The usual case (the stream exists, the expectation holds) as one prepared statement; it
      // writes nothing and answers no row otherwise, and append_event then decides (new stream,
      // wrong revision, retry). A duplicate id fails it with 23505, handled by append().
      const fast = (await this.client.queryPrepared('es_append_fast', this.sql.appendFast, params))?.[0];
      if (fast) return fast;
      return (await this.client.queryPrepared('es_append_event', this.sql.appendOne, params))?.[0];
    }
    const [text, params] = single
      ? [this.sql.appendOne, [streamId, expected, single.id, single.type, JSON.stringify(single.data ?? null), JSON.stringify(single.metadata ?? {})]]
      : [
          this.sql.append,
          [
            streamId,
            expected,
            events.map((e) => e.id),
            events.map((e) => e.type),
            events.map((e) => JSON.stringify(e.data ?? null)),
            events.map((e) => JSON.stringify(e.metadata ?? {})),
          ],
        ];
    return (await this.client.query<AppendRow>(text, params)).rows[0]?.r;
  }

  /** The single-writer path: a refused expectation is still answered as the first time when it is a retry of stored ids. */
  private async appendSingleWriter(streamId: string, expected: number, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<string> {
    const outcome = await this.singleWriter!.append(streamId, expected, events);
    if ('result' in outcome) return outcome.result;
    if ('error' in outcome) throw outcome.error;
    let stored: string | null | undefined;
    try {
      stored = (await this.client.query<AppendRow>(this.sql.appendRetry, [streamId, expected, events.map((e) => e.id)])).rows[0]?.r;
    } catch (error) {
      throw this.appendError(error, streamId, expectedRevision);
    }
    if (stored) return stored;
    throw new WrongExpectedRevisionError(streamId, expectedRevision, outcome.refused);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const limit = options.maxCount ?? null;
    if (limit !== null && limit <= 0) return [];
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const asJson = this.readsAsJson(limit);
    const reads = asJson ? this.sql.stream.json : this.sql.stream.rows;
    const rows = await this.run<EventRow>(backwards ? reads.backwards : reads.forwards, [streamId, from, limit], `read stream "${streamId}"`);
    if (asJson) return fromJsonPage(pageOf(rows), undefined);
    return rows.map((row) => toEvent(row));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? null;
    return this.readPage(options.after ?? START, limit, options.metadataKeys, limit !== null && limit >= COPY_PAGE_MIN);
  }

  /**
   * A `$all` page. `bulk`: a page likely full (a catch-up, a rebuild, a tool paging through the
   * store), read by COPY where the client can: PostgreSQL's text output split here costs the
   * reading process about half of what the driver's rows do (docs/benchmarks.md). A live read
   * of a few events stays a prepared statement.
   */
  private async readPage(after: GlobalPosition, limit: number | null, keys: readonly string[] | undefined, bulk: boolean): Promise<RecordedEvent[]> {
    if (limit !== null && limit <= 0) return [];
    const copyOut = this.client.copyOut;
    if (bulk && copyOut && !this.pagesAsJson && limit !== null) {
      try {
        return fromCopyText(await copyOut.call(this.client, allRowsCopy(quoteIdent(this.schema), keys, after, limit)), keys);
      } catch (error) {
        throw this.mapError(error, 'read $all');
      }
    }
    const asJson = this.readsAsJson(limit);
    const sql = this.sql.all(keys, asJson);
    const rows =
      after.commit < 0n
        ? await this.run<EventRow>(sql.fromStart, [limit], 'read $all')
        : await this.run<EventRow>(sql.after, [after.commit.toString(), after.prepare.toString(), limit], 'read $all');
    if (asJson) return fromJsonPage(pageOf(rows), keys);
    return keys ? rows.map((row) => toSlimEvent(row as EventRow & Record<string, unknown>, keys)) : rows.map((row) => toEvent(row));
  }

  /**
   * Whether a read of at most `limit` events comes back as one JSON value (pagesAsJson). A read
   * without a bound stays rows: the whole store as one JSON text could outgrow a string.
   */
  private readsAsJson(limit: number | null): boolean {
    return this.pagesAsJson && limit !== null && limit <= JSON_PAGE_MAX;
  }

  async headPosition(): Promise<GlobalPosition> {
    const rows = await this.run<{ tx: string; global_position: string | number | bigint }>(this.sql.head, [], 'read head position');
    const row = rows[0];
    return row ? { commit: BigInt(row.tx), prepare: BigInt(row.global_position) } : START;
  }

  /** Events in $all (what readAll can reach now), counted in one query: a rebuild's progress total. */
  async countAll(): Promise<number> {
    const rows = await this.run<{ n: string | number }>(this.sql.count, [], 'count $all');
    return Number(rows[0]?.n ?? 0);
  }

  async now(): Promise<Date> {
    const rows = await this.run<{ now: Date | string }>('SELECT clock_timestamp() AS now', [], 'read the clock');
    const value = rows[0]!.now;
    return value instanceof Date ? value : new Date(value);
  }

  /** True when committed events after `after` exist but are held behind a transaction still running. */
  private async hasPending(after: GlobalPosition): Promise<boolean> {
    const rows =
      after.commit < 0n
        ? await this.run<{ pending: boolean }>(this.sql.pendingFromStart, [], 'read $all')
        : await this.run<{ pending: boolean }>(this.sql.pendingAfter, [after.commit.toString(), after.prepare.toString()], 'read $all');
    return rows[0]?.pending === true;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    const maxBatch = Math.max(1, options.maxBatchSize ?? DEFAULT_BATCH);
    let stopped = false;
    let signalled = false;
    let wakeUp: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const signal = () => {
      signalled = true;
      wakeUp?.();
    };
    this.wakeListeners.add(signal);
    const first = this.onFirstSubscription;
    this.onFirstSubscription = undefined;
    first?.();

    /** Resolves on a wake-up since the last call, or after `ms`. */
    const sleep = (ms: number) =>
      new Promise<void>((done) => {
        if (signalled || stopped) return done();
        wakeUp = done;
        timer = setTimeout(done, ms);
      }).finally(() => {
        clearTimeout(timer);
        wakeUp = undefined;
      });

    const token = {};
    const loop = async () => {
      let after = options.after ?? START;
      let caughtUp = false;
      let retryDelay = 0;
      let pendingDelay = 0;
      let startHead: GlobalPosition | undefined;
      const read = (from: GlobalPosition, bulk: boolean) => {
        // Cleared before reading: an append acknowledged during the read sets it again.
        signalled = false;
        return this.readPage(from, maxBatch, options.metadataKeys, bulk);
      };
      /** The page after a full batch, read while the handler works on that batch (catch-up). */
      let ahead: { after: GlobalPosition; page: Promise<RecordedEvent[]> } | undefined;
      while (!stopped) {
        let batch: RecordedEvent[];
        try {
          // "Caught up" means: everything that existed when the subscription started.
          startHead ??= await this.headPosition();
          // In bulk until caught up: a live read brings a few events.
          const next = ahead?.after === after ? ahead.page : read(after, !caughtUp);
          ahead = undefined;
          batch = await next;
        } catch (error) {
          if (stopped) return;
          if (!(error instanceof EventStoreUnavailableError)) throw error;
          retryDelay = Math.min(Math.max(retryDelay * 2, 100), 5_000);
          this.logger?.warn({ err: error, retryInMs: retryDelay }, 'event store subscription: read failed, retrying');
          await sleep(retryDelay);
          continue;
        }
        retryDelay = 0;
        if (stopped) return;
        if (batch.length > 0) {
          const end = batch[batch.length - 1]!.position;
          if (batch.length === maxBatch) {
            // More is likely waiting: the store reads it while the handler runs, instead of after.
            const page = read(end, true);
            page.catch(() => undefined); // awaited (and its error handled) on the next turn, if any
            ahead = { after: end, page };
          }
          await handlerContext.run(token, () => options.onEvents(batch));
          after = end;
        }
        if (!caughtUp && comparePositions(after, startHead) >= 0) {
          caughtUp = true;
          options.onCaughtUp?.();
        }
        if (batch.length === maxBatch || stopped) continue;
        if (batch.length === 0 && (await this.hasPending(after))) {
          // Committed events wait behind an older transaction; it may belong to a writer that
          // never notifies, so look again soon (backing off) instead of waiting for a wake-up.
          pendingDelay = Math.min(Math.max(pendingDelay * 2, 2), this.pollIntervalMs);
          await sleep(pendingDelay);
          continue;
        }
        pendingDelay = 0;
        await sleep(this.pollIntervalMs);
        if (signalled && this.wakeGatherMs > 0 && !stopped) await new Promise((r) => setTimeout(r, this.wakeGatherMs));
      }
    };

    const running = loop().catch((error: unknown) => {
      if (stopped) return;
      if (options.onError) options.onError(error);
      else this.logger?.error({ err: error }, 'event store subscription stopped');
    });
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        this.wakeListeners.delete(signal);
        this.subscriptions.delete(subscription);
        wakeUp?.();
        // Called from inside the handler: waiting for the handler would wait for ourselves.
        if (handlerContext.getStore() === token) return;
        await running;
      },
    };
    this.subscriptions.add(subscription);
    void running.finally(() => {
      this.wakeListeners.delete(signal);
      this.subscriptions.delete(subscription);
    });
    return subscription;
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await Promise.all([...this.subscriptions].map((s) => s.stop()));
      await this.release();
    })());
  }

  private appendError(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
    const code = (error as { code?: unknown }).code;
    if (code === 'ES409') return new WrongExpectedRevisionError(streamId, expected, Number((error as { detail?: unknown }).detail ?? -1));
    if (code === 'ES400') return new DuplicateEventIdError(streamId, (error as Error).message);
    return this.mapError(error, `append to "${streamId}"`);
  }

  private async run<R>(statement: string | Statement, params: unknown[], what: string): Promise<R[]> {
    try {
      const { rows } =
        typeof statement === 'string' ? await this.client.query<R>(statement, params) : await this.client.query<R>(statement.text, params, statement.name);
      return rows;
    } catch (error) {
      throw this.mapError(error, what);
    }
  }

  private mapError(error: unknown, what: string): unknown {
    if (error instanceof EventStoreUnavailableError) return error;
    if (this.closing) return new EventStoreUnavailableError(`Event store (${this.kind}) is closed: cannot ${what}`, { cause: error });
    if (isConnectionFailure(error)) {
      return new EventStoreUnavailableError(`Event store (${this.kind}) unavailable: cannot ${what}: ${(error as Error).message}`, { cause: error });
    }
    return error;
  }
}

/** Runs the schema setup; `client` must hold one connection for the duration (lock + DDL). */
export async function setupSchema(exec: (sql: string) => Promise<unknown>, schema: string): Promise<void> {
  assertSchemaName(schema);
  // Concurrent first opens would race on CREATE ... IF NOT EXISTS; serialise them.
  await exec(`BEGIN; SELECT pg_advisory_xact_lock(hashtext(${`'event-store:${schema}'`})); ${schemaSql(schema)} COMMIT;`);
}
