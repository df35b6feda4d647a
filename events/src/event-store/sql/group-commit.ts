/**
 * Group commit for a store with several writers (PostgreSQL): appends that arrive while another
 * append's round trip is in flight go out together as ONE `append_batch` statement and ONE
 * transaction, whatever the streams; alone, an append goes at once (no timer). Each append is
 * still decided as if alone: one per stream per batch, stream rows locked in stream-id order (no
 * deadlock), retries answered by the single path, and a batch that fails as a whole re-sent one
 * append at a time (docs/event-store.md, "Group commit (PostgreSQL)").
 */
import type { NewEvent } from '../port';
import { sqlFile } from './sql-file';

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

const sql = sqlFile(new URL('./group-commit.sql', import.meta.url));

/** `append_batch` of schema `schema` (quoted), created with the schema: what it takes and answers is in group-commit.sql. */
export function appendBatchFunctionSql(schema: string): string {
  return sql('define_append_batch', { schema });
}

/** A PostgreSQL array literal (every element quoted, so any text is safe in it). */
function arrayLiteral(values: readonly (string | number)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    out += `${i === 0 ? '' : ','}${typeof value === 'number' ? String(value) : `"${value.replace(/[\\"]/g, '\\$&')}"`}`;
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
    this.statement = sql('call_append_batch', { schema: options.schema });
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
