/**
 * The SQL store's appends, by one of three paths: the single writer (PGlite: revisions in
 * memory, plain INSERTs), the group commit (PostgreSQL: what queues meanwhile goes out as one
 * transaction), or alone (one call of the append functions). Whichever path, an append whose
 * event ids are stored already is told apart as a retry (answered as the first time) or a reuse
 * (refused).
 */
import { EventStoreUnavailableError, WrongExpectedRevisionError, type ExpectedRevision, type NewEvent } from '../port';
import { appendStatements, type AppendStatements } from './append-sql';
import type { EventStoreLogger, SqlClient } from './client';
import { DuplicateEventIdError, type MapError } from './errors';
import { decodeExpected, encodeExpected } from './expected-revision';
import { GroupCommit, type QueuedAppend } from './group-commit';
import { quoteIdent } from './identifiers';
import { SingleWriterAppends } from './single-writer';

/** 'last revision/transaction id/global position', or NULL from append_retry when not a retry. */
interface AppendRow {
  r: string | null;
}

export interface SqlAppendsOptions {
  client: SqlClient;
  schema: string;
  mapError: MapError;
  logger?: EventStoreLogger | undefined;
  /** SqlEventStoreOptions.singleWriter. */
  singleWriter?: boolean | undefined;
  /** SqlEventStoreOptions.groupCommit. */
  groupCommit?: boolean | undefined;
}

export class SqlAppends {
  private readonly client: SqlClient;
  private readonly mapError: MapError;
  private readonly sql: AppendStatements;
  private readonly singleWriter: SingleWriterAppends | undefined;
  private readonly groupCommit: GroupCommit | undefined;

  constructor(options: SqlAppendsOptions) {
    const { client } = options;
    if (options.singleWriter) {
      if (!client.queryPrepared) throw new Error('singleWriter needs a client with queryPrepared');
      this.singleWriter = new SingleWriterAppends({ query: client.query.bind(client), queryPrepared: client.queryPrepared.bind(client) }, quoteIdent(options.schema));
    }
    if (options.groupCommit && !options.singleWriter) {
      if (!client.queryPrepared) throw new Error('groupCommit needs a client with queryPrepared');
      this.groupCommit = this.startGroupCommit(client.queryPrepared.bind(client), options);
    }
    this.client = client;
    this.mapError = options.mapError;
    this.sql = appendStatements(quoteIdent(options.schema));
  }

  private startGroupCommit(queryPrepared: NonNullable<SqlClient['queryPrepared']>, options: SqlAppendsOptions): GroupCommit {
    return new GroupCommit({
      schema: quoteIdent(options.schema),
      sendBatch: async (text, params) => (await queryPrepared('es_append_batch', text, params))?.[0],
      sendAlone: async (append) => ({ result: (await this.appendAlone(append.streamId, append.expected, append.events, decodeExpected(append.expected))) ?? '' }),
      failsAll: (error, append) => {
        // Unreachable or closed: one by one would only fail the same way, each after a timeout.
        const mapped = this.mapError(error, `append to "${append.streamId}"`);
        return mapped instanceof EventStoreUnavailableError ? mapped : undefined;
      },
      onFallback: (error, appends) => options.logger?.warn({ err: error, appends }, 'event store: group commit batch failed, sending its appends one by one'),
    });
  }

  /** Appends by the store's path; answers 'last revision/transaction id/global position' (as the functions write it). */
  async append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<string | null | undefined> {
    const expected = encodeExpected(expectedRevision);
    return this.singleWriter
      ? await this.answeringRetries(streamId, expected, events, expectedRevision, () => this.appendSingleWriter(streamId, expected, events, expectedRevision))
      : this.groupCommit
        ? await this.appendGrouped({ streamId, expected, events }, expectedRevision)
        : await this.appendAlone(streamId, expected, events, expectedRevision);
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

  private appendError(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
    const code = (error as { code?: unknown }).code;
    if (code === 'ES409') return new WrongExpectedRevisionError(streamId, expected, Number((error as { detail?: unknown }).detail ?? -1));
    if (code === 'ES400') return new DuplicateEventIdError(streamId, (error as Error).message);
    return this.mapError(error, `append to "${streamId}"`);
  }
}
