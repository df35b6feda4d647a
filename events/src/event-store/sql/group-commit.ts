/**
 * Group commit for a store with several writers (PostgreSQL): appends that arrive while another
 * append's round trip is in flight wait in a queue, and everything queued then goes out as ONE
 * statement and ONE transaction (`append_batch`), whatever the streams. With no concurrency an
 * append goes at once, through the single append path (no timer, no added latency).
 *
 * Each append in a batch is decided on its own, as if it were alone: its expected revision is
 * checked against its stream, a refusal writes nothing for it and does not touch the others. A
 * batch holds one append per stream; a later append to the same stream goes in a later batch,
 * against the revision the earlier one left (arrival order). Appends whose event ids
 * are stored already (a retry, or ids reused elsewhere) are answered by the single append path
 * after the batch, which knows how to tell the two apart. Should the batch statement fail as a
 * whole (a concurrent writer stored the same id, a deadlock, a malformed id), its appends are
 * sent one by one through the single path, so the outcome is exactly that of the single path.
 *
 * Deadlocks between batches of several processes: a batch locks its stream rows in one order
 * (stream id, byte order), so two batches never wait for each other in a cycle.
 */
import type { NewEvent } from '../port';

/** An append as the queue carries it; `expected` is the append functions' bigint code. */
export interface QueuedAppend {
  streamId: string;
  expected: number;
  events: NewEvent[];
}

/** What an append came to: 'last revision/transaction id/global position', or refused with the stream's actual revision. */
export type GroupOutcome = { result: string } | { refused: number };

/** One answer of `append_batch` per append. */
export type BatchAnswer = GroupOutcome | { alone: true };

export interface GroupCommitOptions {
  /** Runs `append_batch` (one round trip, one transaction); answers its text, or throws when the statement failed. */
  sendBatch: (text: string, params: string[]) => Promise<string | null | undefined>;
  /** The single append path, with its own retry handling and error mapping. */
  sendAlone: (append: QueuedAppend) => Promise<GroupOutcome>;
  /** The error an append of a failed batch gets at once (the store is unreachable), or undefined to send the batch's appends one by one. */
  failsAll: (error: unknown, append: QueuedAppend) => unknown;
  /** Told when a batch statement failed and its appends are sent one by one (for a log line). */
  onFallback?: (error: unknown, appends: number) => void;
  /** Schema name, quoted. */
  schema: string;
  /** Upper bounds of one batch. Defaults 128 appends, 256 events. */
  maxAppends?: number;
  maxEvents?: number;
}

interface Pending {
  append: QueuedAppend;
  resolve: (outcome: GroupOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * `append_batch`: appends to distinct streams in one transaction, with a few set-based statements
 * (a loop of statements per append cost the server as much as separate appends). Per append:
 * p_streams (distinct), p_expected (as append_event takes it); per event, in append order:
 * p_appends (its append's index, 1-based), p_ids, p_types, p_data, p_metadata. Answers one item
 * per append, joined by ',': 'last revision/transaction id/global position' (appended),
 * 'E409:<actual revision>' (the expectation did not hold; nothing written for it) or 'F' (some
 * of its ids are stored already, or its new stream was created concurrently: the caller decides
 * it alone).
 */
export function groupCommitSql(s: string): string {
  // Generic plans: the statements are planned once per connection, not on every call (custom
  // plans for array parameters were a quarter of a batch's server time). Every statement here
  // reaches its rows by key; a plan made while the tables were still small would otherwise scan
  // them whole for as long as the connection lives (the id probe did, growing with the store).
  return `
CREATE OR REPLACE FUNCTION ${s}.append_batch(
  p_streams text[], p_expected bigint[], p_appends int[], p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
DECLARE
  v_current bigint[];
  v_answers text[];
  v_stored uuid[];
  v_retried int[];
BEGIN
  -- Appends with ids stored already (retries, reuses; rare) go to the single append path. Probed
  -- with = ANY on the unique index: the planner cannot turn it into a scan of the whole table.
  SELECT array_agg(e.event_id) INTO v_stored FROM ${s}.events e WHERE e.event_id = ANY (p_ids);
  IF v_stored IS NOT NULL THEN
    SELECT array_agg(DISTINCT u.a) INTO v_retried FROM unnest(p_appends, p_ids) AS u(a, id) WHERE u.id = ANY (v_stored);
  END IF;

  -- Lock the existing stream rows in stream id (byte) order, so that batches of several
  -- processes never wait for each other in a cycle; read each stream's revision under the lock
  -- and decide each append on it. (Streams are distinct: should one repeat, its events would
  -- clash on the (stream_id, revision) index and the batch fail as a whole.)
  WITH locked AS MATERIALIZED (
    SELECT st.stream_id, st.revision FROM ${s}.streams st
     WHERE st.stream_id = ANY (p_streams) ORDER BY st.stream_id COLLATE "C" FOR UPDATE
  )
  SELECT array_agg(coalesce(l.revision, -1) ORDER BY b.ord),
         array_agg(CASE
           WHEN b.ord = ANY (v_retried) THEN 'F'
           WHEN (b.expected = -1 AND l.revision IS NOT NULL) OR (b.expected = -3 AND l.revision IS NULL)
             OR (b.expected >= 0 AND coalesce(l.revision, -1) <> b.expected) THEN 'E409:' || coalesce(l.revision, -1)
           END ORDER BY b.ord)
    INTO v_current, v_answers
    FROM unnest(p_streams, p_expected) WITH ORDINALITY AS b(stream, expected, ord)
    LEFT JOIN locked l ON l.stream_id = b.stream;

  -- Then, in one statement: move the existing streams on (their rows are locked already),
  -- create the new ones in the same order as above, insert the events in arrival order (global
  -- positions follow it, as append_events relies on) and answer. A new stream created meanwhile
  -- by a committed writer is left to the single append path ('F'), which checks against it.
  WITH sizes AS (
    SELECT u.a, count(*) AS n FROM unnest(p_appends) AS u(a) GROUP BY u.a
  ), updated AS (
    UPDATE ${s}.streams st SET revision = v_current[z.a] + z.n FROM sizes z
     WHERE st.stream_id = p_streams[z.a] AND v_answers[z.a] IS NULL AND v_current[z.a] >= 0
    RETURNING z.a
  ), created AS (
    INSERT INTO ${s}.streams (stream_id, revision)
    SELECT p_streams[z.a], z.n - 1 FROM sizes z
     WHERE v_answers[z.a] IS NULL AND v_current[z.a] = -1
     ORDER BY p_streams[z.a] COLLATE "C"
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING stream_id
  ), claimed AS (
    SELECT x.a FROM updated x
    UNION ALL
    SELECT b.ord FROM created c JOIN unnest(p_streams) WITH ORDINALITY AS b(stream, ord) ON b.stream = c.stream_id
  ), inserted AS (
    INSERT INTO ${s}.events (event_id, stream_id, revision, type, data, metadata)
    SELECT u.id, p_streams[u.a], v_current[u.a] + row_number() OVER (PARTITION BY u.a ORDER BY u.k), u.type, u.data, u.metadata
      FROM unnest(p_appends, p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS u(a, id, type, data, metadata, k)
     WHERE u.a IN (SELECT x.a FROM claimed x)
     ORDER BY u.k
    RETURNING stream_id, revision, global_position
  ), last AS (
    SELECT i.stream_id, max(i.revision) AS revision, max(i.global_position) AS position FROM inserted i GROUP BY i.stream_id
  )
  SELECT array_agg(coalesce(v_answers[b.ord], CASE WHEN l.stream_id IS NULL THEN 'F' ELSE l.revision || '/' || pg_current_xact_id() || '/' || l.position END) ORDER BY b.ord)
    INTO v_answers
    FROM unnest(p_streams) WITH ORDINALITY AS b(stream, ord) LEFT JOIN last l ON l.stream_id = b.stream;
  RETURN array_to_string(v_answers, ',');
END
$fn$;
`;
}

/** A PostgreSQL array literal (every element quoted, so any text is safe in it). */
function arrayLiteral(values: readonly (string | number)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    out += `${i === 0 ? '' : ','}${typeof v === 'number' ? String(v) : `"${v.replace(/[\\"]/g, '\\$&')}"`}`;
  }
  return `${out}}`;
}

/** `append_batch`'s answer, one item per append; throws on an answer it does not expect. */
export function parseBatchAnswer(text: string | null | undefined, appends: number): BatchAnswer[] {
  const items = (text ?? '').split(',');
  if (items.length !== appends) throw new Error(`append_batch answered ${items.length} items for ${appends} appends: "${String(text)}"`);
  return items.map((item) => {
    if (item === 'F') return { alone: true };
    const refused = /^E409:(-?\d+)$/.exec(item);
    if (refused) return { refused: Number(refused[1]) };
    if (!/^\d+\/\d+\/\d+$/.test(item)) throw new Error(`append_batch answered "${item}"`);
    return { result: item };
  });
}

const DEFAULT_MAX_APPENDS = 128;
const DEFAULT_MAX_EVENTS = 256;
/** A round trip that failed as unreachable after this long hung (rather than was refused at once). */
const HUNG_MS = 1_000;

export class GroupCommit {
  private readonly queue: Pending[] = [];
  private busy = false;
  private readonly statement: string;
  private readonly maxAppends: number;
  private readonly maxEvents: number;

  constructor(private readonly options: GroupCommitOptions) {
    this.statement = `SELECT ${options.schema}.append_batch($1::text[], $2::bigint[], $3::int[], $4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[]) AS r`;
    this.maxAppends = Math.max(1, options.maxAppends ?? DEFAULT_MAX_APPENDS);
    this.maxEvents = Math.max(1, options.maxEvents ?? DEFAULT_MAX_EVENTS);
  }

  /** Sends the append now when nothing is in flight, else with everything queued meanwhile. */
  append(append: QueuedAppend): Promise<GroupOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ append, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      for (let acknowledged = 0; ; ) {
        // After a batch, let the appenders it acknowledged queue their next appends before
        // looking: otherwise the first of them would go alone and the rest trail as a batch.
        // Not after a lone append: a sequential appender's next append then goes at once.
        if (acknowledged > 1) await new Promise<void>((done) => setImmediate(done));
        if (this.queue.length === 0) break;
        const group = this.take();
        acknowledged = group.length;
        const started = performance.now();
        const unreachable = group.length === 1 ? await this.alone(group[0]!) : await this.together(group);
        // The store hung and then proved unreachable (a partition, until the query timeout): the
        // appends that queued meanwhile fail with it now rather than wait a full timeout again,
        // so each answers within about one timeout, as it would alone. After a quick failure
        // (a reset connection) they still try for themselves.
        if (unreachable !== undefined && performance.now() - started >= HUNG_MS) {
          for (const pending of this.queue.splice(0)) pending.reject(this.options.failsAll(unreachable, pending.append) ?? unreachable);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * The next group, in arrival order: as many appends as fit the bounds (at least one, however
   * large), one per stream. A later append to a stream already in the group waits for the next
   * one, so one stream's appends are applied in arrival order, each against the state the
   * previous one left.
   */
  private take(): Pending[] {
    const group: Pending[] = [];
    const streams = new Set<string>();
    const rest: Pending[] = [];
    let events = 0;
    let i = 0;
    for (; i < this.queue.length && group.length < this.maxAppends; i++) {
      const pending = this.queue[i]!;
      const size = pending.append.events.length;
      if (group.length > 0 && events + size > this.maxEvents) break;
      if (streams.has(pending.append.streamId)) {
        rest.push(pending);
        continue;
      }
      streams.add(pending.append.streamId);
      group.push(pending);
      events += size;
    }
    this.queue.splice(0, i, ...rest);
    return group;
  }

  /** Sends one append through the single path; answers the error when it proved the store unreachable. */
  private async alone(pending: Pending): Promise<unknown> {
    try {
      pending.resolve(await this.options.sendAlone(pending.append));
      return undefined;
    } catch (error) {
      pending.reject(error);
      return this.options.failsAll(error, pending.append) === undefined ? undefined : error;
    }
  }

  /** Sends a batch; answers the error when it proved the store unreachable. */
  private async together(group: Pending[]): Promise<unknown> {
    let answers: BatchAnswer[];
    try {
      answers = parseBatchAnswer(await this.options.sendBatch(this.statement, this.params(group)), group.length);
    } catch (error) {
      if (this.options.failsAll(error, group[0]!.append) !== undefined) {
        for (const pending of group) pending.reject(this.options.failsAll(error, pending.append));
        return error;
      }
      // The statement failed as a whole and wrote nothing: each append as if it had come alone.
      this.options.onFallback?.(error, group.length);
      let unreachable: unknown;
      for (const pending of group) unreachable = (await this.alone(pending)) ?? unreachable;
      return unreachable;
    }
    const alone: Pending[] = [];
    group.forEach((pending, i) => {
      const answer = answers[i]!;
      if ('alone' in answer) alone.push(pending);
      else pending.resolve(answer);
    });
    let unreachable: unknown;
    for (const pending of alone) unreachable = (await this.alone(pending)) ?? unreachable;
    return unreachable;
  }

  private params(group: Pending[]): string[] {
    const streams: string[] = [];
    const expected: number[] = [];
    const appends: number[] = [];
    const ids: string[] = [];
    const types: string[] = [];
    const data: string[] = [];
    const metadata: string[] = [];
    for (const { append } of group) {
      streams.push(append.streamId);
      expected.push(append.expected);
      for (const event of append.events) {
        appends.push(streams.length);
        ids.push(event.id);
        types.push(event.type);
        data.push(JSON.stringify(event.data ?? null));
        metadata.push(JSON.stringify(event.metadata ?? {}));
      }
    }
    return [streams, expected, appends, ids, types, data, metadata].map(arrayLiteral);
  }
}
