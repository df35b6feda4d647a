/** The SQL store's reads: a stream, `$all` (by page, in bulk by COPY where the client can), the head, the clock. */
import { START, type GlobalPosition, type ReadAllOptions, type ReadStreamOptions, type RecordedEvent } from '../port';
import type { SqlClient, Statement } from './client';
import type { MapError } from './errors';
import { fromCopyText, fromJsonPage, pageOf, toEvent, toSlimEvent, type EventRow } from './events-from-rows';
import { quoteIdent } from './identifiers';
import { allRowsCopy, readStatements, type ReadStatements } from './read-sql';

/** A `readAll` asking for this many events or more is read in bulk (readPage). */
const COPY_PAGE_MIN = 1_000;
/** The largest `$all` read sent back as one JSON value (pagesAsJson): ~500 bytes an event. */
const JSON_PAGE_MAX = 50_000;

export class SqlReads {
  private readonly sql: ReadStatements;

  constructor(
    private readonly client: SqlClient,
    private readonly schema: string,
    private readonly pagesAsJson: boolean,
    private readonly mapError: MapError,
  ) {
    this.sql = readStatements(quoteIdent(schema));
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
   * reading process far less than the driver's rows do (docs/benchmarks/history/rebuild.md,
   * "A catch-up's pages read by COPY"). A live read of a few events stays a prepared statement.
   */
  async readPage(after: GlobalPosition, limit: number | null, keys: readonly string[] | undefined, bulk: boolean): Promise<RecordedEvent[]> {
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
    const rows = await this.run<{ now: Date | string }>(this.sql.now, [], 'read the clock');
    const value = rows[0]!.now;
    return value instanceof Date ? value : new Date(value);
  }

  /** True when committed events after `after` exist but are held behind a transaction still running. */
  async hasPending(after: GlobalPosition): Promise<boolean> {
    const rows =
      after.commit < 0n
        ? await this.run<{ pending: boolean }>(this.sql.pendingFromStart, [], 'read $all')
        : await this.run<{ pending: boolean }>(this.sql.pendingAfter, [after.commit.toString(), after.prepare.toString()], 'read $all');
    return rows[0]?.pending === true;
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
}
