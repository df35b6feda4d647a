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

/** The few pino methods the adapters use; a pino `Logger` fits. */
export interface EventStoreLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /**
   * Optional fast path for a hot statement: runs `text` as the named prepared statement `name`
   * (parsed and planned once) with text parameters, answering the first row's columns as text
   * (undefined: no row). Errors carry `code` and `detail` like `query`'s.
   */
  queryPrepared?(name: string, text: string, params: (string | null)[]): Promise<(string | null)[] | undefined>;
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
    SELECT st.revision INTO v_current FROM ${s}.streams st WHERE st.stream_id = p_stream_id;
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

-- Several one-event appends from concurrent callers in one call and one transaction (the
-- embedded store's group commit). Each runs in its own subtransaction, so one refused append
-- leaves the others alone; ids and data come as text and are cast inside it, so one malformed
-- value fails only its own append. Answers per append the append_event result or
-- 'E' SQLSTATE \x1f detail \x1f message.
CREATE OR REPLACE FUNCTION ${s}.append_group(
  p_streams text[], p_expected bigint[], p_ids text[], p_types text[], p_data text[], p_metadata text[]
) RETURNS text[] LANGUAGE plpgsql AS $fn$
DECLARE
  v_results text[] := '{}';
  v_result text;
  v_detail text;
BEGIN
  FOR i IN 1 .. cardinality(p_ids) LOOP
    BEGIN
      v_result := ${s}.append_event(p_streams[i], p_expected[i], p_ids[i]::uuid, p_types[i], p_data[i]::jsonb, p_metadata[i]::jsonb);
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS v_detail = PG_EXCEPTION_DETAIL;
      v_result := 'E' || SQLSTATE || chr(31) || coalesce(v_detail, '') || chr(31) || SQLERRM;
    END;
    v_results := v_results || v_result;
  END LOOP;
  RETURN v_results;
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
`;
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
  recorded_at: Date | string;
}

/** 'last revision/transaction id/global position', or NULL from append_retry when not a retry. */
interface AppendRow {
  r: string | null;
}

const toNumber = (v: string | number | bigint) => Number(v);

function toEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: toNumber(row.revision),
    position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
    type: row.type,
    data: row.data,
    metadata: row.metadata ?? {},
    recordedAt: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
  };
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

const COLUMNS = `event_id::text AS event_id, stream_id, revision, transaction_id::text AS tx, global_position, type, data, metadata, recorded_at`;

export interface SqlEventStoreOptions {
  kind: string;
  client: SqlClient;
  schema: string;
  logger?: EventStoreLogger;
  /** Poll interval when no wake-up arrives (a missed notification, a transaction held open elsewhere). */
  pollIntervalMs?: number;
  /** Releases the adapter's connections; called once by close(). */
  release: () => Promise<void>;
  /**
   * Send one-event appends that arrive while another append runs together, in one call and one
   * transaction. For PGlite, which runs one query at a time anyway: concurrent appends then cost
   * one round-trip and one commit instead of one each. Default false.
   */
  groupAppends?: boolean;
}

interface QueuedAppend {
  streamId: string;
  expected: number;
  event: NewEvent;
  done: (outcome: { result: string } | { error: unknown }) => void;
}

/** Upper bound on appends sent in one group. */
const MAX_GROUP = 64;

/** A database error carried back as text from append_group. */
function groupError(encoded: string): Error & { code: string; detail: string } {
  const [code = '', detail = '', message = ''] = encoded.slice(1).split('\x1f');
  return Object.assign(new Error(message), { code, detail });
}

/** A text[] literal of non-null values (every element quoted, so any text is safe in it). */
function arrayLiteral(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** Parses a one-dimensional text[] in PostgreSQL's output format (elements quoted when needed, NULL unquoted). */
export function parseTextArray(text: string): (string | null)[] {
  const out: (string | null)[] = [];
  let i = 1;
  const end = text.length - 1;
  if (end <= i) return out;
  while (i < end) {
    if (text[i] === '"') {
      let value = '';
      i++;
      while (text[i] !== '"') {
        if (text[i] === '\\') i++;
        value += text[i];
        i++;
      }
      i++;
      out.push(value);
    } else {
      let j = i;
      while (j < end && text[j] !== ',') j++;
      const raw = text.slice(i, j);
      out.push(raw === 'NULL' ? null : raw);
      i = j;
    }
    i++; // the comma (or past the end)
  }
  return out;
}

const DEFAULT_BATCH = 500;

/** Which subscription's handler is running, so stop() called from inside it does not wait for itself. */
const handlerContext = new AsyncLocalStorage<object>();

export class SqlEventStore implements EventStore {
  readonly kind: string;
  /** The store's own connection, for tools that must measure or inspect the same database (bench). */
  readonly client: SqlClient;
  private readonly logger: EventStoreLogger | undefined;
  private readonly pollIntervalMs: number;
  private readonly release: () => Promise<void>;
  private readonly sql: {
    append: string;
    appendOne: string;
    appendFast: string;
    appendRetry: string;
    appendGroup: string;
    streamForwards: string;
    streamBackwards: string;
    allFromStart: string;
    allAfter: string;
    head: string;
    pendingFromStart: string;
    pendingAfter: string;
  };
  private readonly wakeListeners = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly appendListeners = new Set<() => void>();
  private closing: Promise<void> | undefined;
  private readonly groupAppends: boolean;
  private readonly queue: QueuedAppend[] = [];
  private draining = false;

  constructor(options: SqlEventStoreOptions) {
    this.groupAppends = options.groupAppends ?? false;
    this.kind = options.kind;
    this.client = options.client;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.release = options.release;
    const s = quoteIdent(options.schema);
    const horizon = `transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;
    const after = `(transaction_id, global_position) > ($1::text::xid8, $2::bigint)`;
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
      appendGroup: `SELECT ${s}.append_group($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS r`,
      streamForwards: `SELECT ${COLUMNS} FROM ${s}.events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      streamBackwards: `SELECT ${COLUMNS} FROM ${s}.events WHERE stream_id = $1 AND revision <= $2 ORDER BY revision DESC LIMIT $3`,
      allFromStart: `SELECT ${COLUMNS} FROM ${s}.events WHERE ${horizon} ORDER BY transaction_id, global_position LIMIT $1`,
      allAfter: `SELECT ${COLUMNS} FROM ${s}.events WHERE ${after} AND ${horizon} ORDER BY transaction_id, global_position LIMIT $3`,
      head: `SELECT transaction_id::text AS tx, global_position FROM ${s}.events WHERE ${horizon} ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
      pendingFromStart: `SELECT EXISTS (SELECT 1 FROM ${s}.events WHERE NOT (${horizon})) AS pending`,
      pendingAfter: `SELECT EXISTS (SELECT 1 FROM ${s}.events WHERE ${after} AND NOT (${horizon})) AS pending`,
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
    let result: string | null | undefined;
    try {
      result = this.groupAppends && events.length === 1 ? await this.enqueue(streamId, expected, events[0]!) : await this.appendNow(streamId, expected, events);
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
    const parts = /^(\d+)\/(\d+)\/(\d+)$/.exec(result ?? '');
    if (!parts) throw new Error(`Append to "${streamId}" returned "${String(result)}"`);
    this.wake();
    for (const listener of this.appendListeners) listener();
    return { nextExpectedRevision: Number(parts[1]), position: { commit: BigInt(parts[2]!), prepare: BigInt(parts[3]!) } };
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

  private enqueue(streamId: string, expected: number, event: NewEvent): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ streamId, expected, event, done: (o) => ('result' in o ? resolve(o.result) : reject(o.error)) });
      if (!this.draining) void this.drain();
    });
  }

  /** Sends queued appends: alone when nothing else waited, else as one group. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        if (group.length === 1) {
          const [only] = group as [QueuedAppend];
          try {
            only.done({ result: (await this.appendNow(only.streamId, only.expected, [only.event])) ?? '' });
          } catch (error) {
            only.done({ error });
          }
          continue;
        }
        let results: (string | null)[];
        try {
          const params = [
            group.map((a) => a.streamId),
            group.map((a) => String(a.expected)),
            group.map((a) => a.event.id),
            group.map((a) => a.event.type),
            group.map((a) => JSON.stringify(a.event.data ?? null)),
            group.map((a) => JSON.stringify(a.event.metadata ?? {})),
          ];
          if (this.client.queryPrepared) {
            const r = (await this.client.queryPrepared('es_append_group', this.sql.appendGroup, params.map(arrayLiteral)))?.[0];
            results = r ? parseTextArray(r) : [];
          } else {
            results = (await this.client.query<{ r: (string | null)[] }>(this.sql.appendGroup, params)).rows[0]?.r ?? [];
          }
        } catch (error) {
          for (const a of group) a.done({ error });
          continue;
        }
        group.forEach((a, k) => {
          const r = results[k];
          if (typeof r === 'string' && r.startsWith('E')) a.done({ error: groupError(r) });
          else a.done({ result: r ?? '' });
        });
      }
    } finally {
      this.draining = false;
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const limit = options.maxCount ?? null;
    if (limit !== null && limit <= 0) return [];
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const rows = await this.run<EventRow>(backwards ? this.sql.streamBackwards : this.sql.streamForwards, [streamId, from, limit], `read stream "${streamId}"`);
    return rows.map(toEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? null;
    if (limit !== null && limit <= 0) return [];
    const after = options.after ?? START;
    const rows =
      after.commit < 0n
        ? await this.run<EventRow>(this.sql.allFromStart, [limit], 'read $all')
        : await this.run<EventRow>(this.sql.allAfter, [after.commit.toString(), after.prepare.toString(), limit], 'read $all');
    return rows.map(toEvent);
  }

  async headPosition(): Promise<GlobalPosition> {
    const rows = await this.run<{ tx: string; global_position: string | number | bigint }>(this.sql.head, [], 'read head position');
    const row = rows[0];
    return row ? { commit: BigInt(row.tx), prepare: BigInt(row.global_position) } : START;
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
      while (!stopped) {
        // Cleared before reading: an append acknowledged during the read sets it again.
        signalled = false;
        let batch: RecordedEvent[];
        try {
          // "Caught up" means: everything that existed when the subscription started.
          startHead ??= await this.headPosition();
          batch = await this.readAll({ after, maxCount: maxBatch });
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
          await handlerContext.run(token, () => options.onEvents(batch));
          after = batch[batch.length - 1]!.position;
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

  private async run<R>(text: string, params: unknown[], what: string): Promise<R[]> {
    try {
      return (await this.client.query<R>(text, params)).rows;
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
