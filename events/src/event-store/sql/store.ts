/**
 * The SQL event store shared by the PGlite and PostgreSQL adapters: one schema, the same append
 * functions, one set of queries; each adapter supplies a `SqlClient` and, for PostgreSQL,
 * cross-process wake-ups. `$all` is read in (transaction_id, global_position) order and only below
 * the oldest transaction still running (`pg_snapshot_xmin`), so a transaction that commits late
 * never slips in behind a position a subscriber has already passed.
 */
import {
  EventStoreUnavailableError,
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
} from '../port';
import { SqlAppends } from './appends';
import type { EventStoreLogger, SqlClient } from './client';
import { isConnectionFailure } from './errors';
import { SqlReads } from './reads';
import { PollingSubscription, type SubscriptionTiming } from './subscription';

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
   * string, that is far cheaper (docs/architecture.md, "Event store"); PostgreSQL's server would
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

export class SqlEventStore implements EventStore {
  readonly kind: string;
  /** The store's own connection, for tools that must measure or inspect the same database (bench). */
  readonly client: SqlClient;
  /** The schema its tables live in (unquoted). */
  readonly schema: string;
  private readonly timing: SubscriptionTiming;
  private readonly release: () => Promise<void>;
  private onFirstSubscription: (() => void) | undefined;
  private readonly appends: SqlAppends;
  private readonly reads: SqlReads;
  private readonly wakeListeners = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly appendListeners = new Set<() => void>();
  private closing: Promise<void> | undefined;

  constructor(options: SqlEventStoreOptions) {
    const mapError = (error: unknown, what: string) => this.mapError(error, what);
    this.appends = new SqlAppends({ ...options, mapError });
    this.kind = options.kind;
    this.client = options.client;
    this.schema = options.schema;
    this.timing = { logger: options.logger, pollIntervalMs: options.pollIntervalMs ?? 1_000, wakeGatherMs: options.wakeGatherMs ?? 0 };
    this.release = options.release;
    this.onFirstSubscription = options.onFirstSubscription;
    this.reads = new SqlReads(options.client, options.schema, options.pagesAsJson ?? false, mapError);
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
    const result = await this.appends.append(streamId, events, expectedRevision);
    const parts = /^(\d+)\/(\d+)\/(\d+)$/.exec(result ?? '');
    if (!parts) throw new Error(`Append to "${streamId}" returned "${String(result)}"`);
    this.wake();
    for (const listener of this.appendListeners) listener();
    return { nextExpectedRevision: Number(parts[1]), position: { commit: BigInt(parts[2]!), prepare: BigInt(parts[3]!) } };
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return this.reads.readStream(streamId, options);
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.reads.readAll(options);
  }

  headPosition(): Promise<GlobalPosition> {
    return this.reads.headPosition();
  }

  /** Events in $all (what readAll can reach now), counted in one query: a rebuild's progress total. */
  countAll(): Promise<number> {
    return this.reads.countAll();
  }

  now(): Promise<Date> {
    return this.reads.now();
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    const subscription = new PollingSubscription(options, this.reads, this.timing, (ended) => {
      this.wakeListeners.delete(ended.signal);
      this.subscriptions.delete(ended);
    });
    this.wakeListeners.add(subscription.signal);
    const first = this.onFirstSubscription;
    this.onFirstSubscription = undefined;
    first?.();
    subscription.start();
    this.subscriptions.add(subscription);
    return subscription;
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
      await this.release();
    })());
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
