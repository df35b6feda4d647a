import {
  ANY,
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  NotLeaderError,
  START as ESDB_START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  convertToCommandError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type CurrentRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type ReadRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  EventStoreUnavailableError,
  START,
  WrongExpectedRevisionError,
  comparePositions,
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
import type { EventStoreLogger } from './sql/client';

/**
 * EventStoreDB / KurrentDB adapter of the EventStore port (`@eventstore/db-client` v6, gRPC).
 * Revisions are `bigint` there, `number` here (exact: none nears 2^53). Positions are ESDB's
 * commit/prepare pair; the port's "after" is exclusive and the client's `fromPosition`
 * inclusive, so the event at `after` is dropped, on subscriptions too (never delivered twice).
 * System events (`$` type or stream) are no product history: reads and subscriptions skip them.
 * ESDB acknowledges a retry (same ids, same expected revision) unwritten; for `any`, best effort.
 */

/** The part of the client this adapter uses; tests pass a fake with the same behaviour. */
export type EsdbClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;

// ---- pure mappings (unit-tested without a server) -------------------------------------------

/** Port expected revision → client expected revision. `-1` means "no stream", as `WrongExpectedRevisionError.actual` reports it. */
export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < -1) {
        throw new RangeError(`Expected revision must be an integer >= -1, got ${String(expected)}`);
      }
      return expected === -1 ? NO_STREAM : BigInt(expected);
  }
}

/** Client "current revision" → port revision (-1 when the stream does not exist). */
export function fromEsdbCurrentRevision(current: CurrentRevision | bigint | undefined): number {
  if (current === undefined || current === NO_STREAM) return -1;
  return current < 0n ? -1 : Number(current);
}

export function toGlobalPosition(position: Position): GlobalPosition {
  return { commit: position.commit, prepare: position.prepare };
}

/**
 * Port "after" position → where the client starts reading. START (or anything before the log)
 * reads from the beginning; otherwise the read starts at `after` itself and the caller drops it.
 */
export function toEsdbReadPosition(after: GlobalPosition | undefined): ReadPosition {
  if (!after || after.commit < 0n || after.prepare < 0n) return ESDB_START;
  return { commit: after.commit, prepare: after.prepare };
}

/** Events the product never wrote: ESDB's own (`$metadata`, `$statsCollected`, `$>` links, …). */
export function isSystemEvent(event: { streamId: string; type: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** True when the error means "the store cannot be reached now" (the command side answers 503). */
export function isUnavailableError(raw: unknown): boolean {
  // Some client paths (the server-features probe before an append) reject with the raw gRPC
  // error; convert it the way the client does for its own calls.
  const error = raw instanceof Error ? convertToCommandError(raw) : raw;
  if (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof NotLeaderError ||
    // The server cancels calls when it shuts down (ESDB >= 24.4).
    error instanceof CancelledError
  ) {
    return true;
  }
  if (!(error instanceof Error)) return false;
  // Cluster discovery gives up with a plain Error; sockets fail with Node's system codes.
  if (/^Failed to discover after \d+ attempts/.test(error.message)) return true;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE'].includes(code);
}

/** Client errors → the port's errors. Anything else is returned as it is. */
export function mapEsdbError(error: unknown, append?: { streamId: string; expected: ExpectedRevision }): unknown {
  if (error instanceof WrongExpectedVersionError) {
    return new WrongExpectedRevisionError(
      append?.streamId ?? error.streamName,
      append?.expected ?? 'any',
      fromEsdbCurrentRevision(error.actualVersion),
    );
  }
  if (error instanceof EventStoreUnavailableError || error instanceof WrongExpectedRevisionError) return error;
  if (isUnavailableError(error)) {
    const reason = error instanceof Error ? error.message : String(error);
    return new EventStoreUnavailableError(`EventStoreDB is unavailable: ${reason}`, { cause: error });
  }
  return error;
}

function toMetadata(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * A client resolved event → the port's recorded event. `position` comes with every $all read;
 * stream reads carry it from ESDB 22.6 on, before that the record's commit position stands in.
 */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event) return undefined;
  const position = event.position
    ? toGlobalPosition(event.position)
    : resolved.commitPosition !== undefined
      ? { commit: resolved.commitPosition, prepare: resolved.commitPosition }
      : START;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    position,
    type: event.type,
    data: event.data,
    metadata: toMetadata(event.metadata),
    recordedAt: event.created,
  };
}

// ---- the adapter ----------------------------------------------------------------------------

/** Events per round trip when paging through $all. */
const PAGE_SIZE = 500;

class EsdbEventStore implements EventStore {
  readonly kind = 'esdb';
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  constructor(private readonly client: EsdbClient) {}

  async append(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision = 'any'): Promise<AppendResult> {
    this.assertOpen();
    if (events.length === 0) throw new RangeError(`Nothing to append to "${streamId}"`);
    const expected = toEsdbExpectedRevision(expectedRevision);
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((event) =>
          // `undefined` has no JSON form; store it as null rather than failing inside the client.
          jsonEvent({ id: event.id, type: event.type, data: (event.data ?? null) as JSONType, metadata: event.metadata as JSONType }),
        ),
        { expectedRevision: expected },
      );
      const nextExpectedRevision = Number(result.nextExpectedRevision);
      // The append's own position is exact for a single new event. For several events, or an
      // idempotent retry (the server answers without a position), read the last event's own.
      const position =
        result.position && events.length === 1
          ? toGlobalPosition(result.position)
          : await this.positionOf(streamId, nextExpectedRevision, result.position);
      return { nextExpectedRevision, position };
    } catch (error) {
      throw mapEsdbError(error, { streamId, expected: expectedRevision });
    }
  }

  private async positionOf(streamId: string, revision: number, fallback: Position | undefined): Promise<GlobalPosition> {
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    if (event && event.revision === revision && comparePositions(event.position, START) > 0) return event.position;
    if (fallback) return toGlobalPosition(fallback);
    throw new Error(`EventStoreDB returned no position for revision ${revision} of "${streamId}"`);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const direction = options.direction ?? 'forwards';
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    let fromRevision: ReadRevision;
    if (options.fromRevision === undefined) fromRevision = direction === 'forwards' ? ESDB_START : END;
    else if (!Number.isSafeInteger(options.fromRevision) || options.fromRevision < 0) {
      throw new RangeError(`fromRevision must be a non-negative integer, got ${options.fromRevision}`);
    } else fromRevision = BigInt(options.fromRevision);
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: direction === 'forwards' ? FORWARDS : BACKWARDS,
        fromRevision,
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) {
        const event = toRecordedEvent(resolved);
        if (event) out.push(event);
      }
      return out;
    } catch (error) {
      // A stream that never existed, or was deleted, reads as empty (the port's rule).
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw mapEsdbError(error);
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const wanted = options.maxCount ?? Number.POSITIVE_INFINITY;
    const out: RecordedEvent[] = [];
    if (wanted <= 0) return out;
    let lower = options.after ?? START;
    try {
      // Page until enough product events are collected: system events and the inclusive start
      // are dropped client-side, so one read of `maxCount` events may not be enough.
      for (;;) {
        const pageSize = Math.min(PAGE_SIZE, Math.max(2, wanted - out.length + 1));
        let seen = 0;
        for await (const resolved of this.client.readAll({
          direction: FORWARDS,
          fromPosition: toEsdbReadPosition(lower),
          maxCount: pageSize,
        })) {
          seen++;
          const event = toRecordedEvent(resolved);
          if (!event || comparePositions(event.position, lower) <= 0) continue;
          lower = event.position;
          if (isSystemEvent(event)) continue;
          out.push(event);
          if (out.length >= wanted) return out;
        }
        if (seen < pageSize) return out;
      }
    } catch (error) {
      throw mapEsdbError(error);
    }
  }

  async headPosition(): Promise<GlobalPosition> {
    this.assertOpen();
    let from: ReadPosition = END;
    try {
      // Newest product event: walk back over any trailing system events.
      for (;;) {
        let seen = 0;
        let last: RecordedEvent | undefined;
        for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: 100 })) {
          seen++;
          const event = toRecordedEvent(resolved);
          if (!event) continue;
          if (!isSystemEvent(event)) return event.position;
          last = event;
        }
        if (seen < 100 || !last) return START;
        // A backwards read starts at (and includes) `from`; the repeated event is a system one.
        from = last.position;
      }
    } catch (error) {
      throw mapEsdbError(error);
    }
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    this.assertOpen();
    const subscription = new EsdbSubscription(this.client, options, () => this.headPosition());
    const handle: Subscription = {
      stop: async () => {
        this.subscriptions.delete(handle);
        await subscription.stop();
      },
    };
    this.subscriptions.add(handle);
    subscription.start();
    return handle;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The EventStoreDB event store is closed');
  }
}

/**
 * One catch-up subscription to $all. Events go through a local queue to `onEvents` in batches;
 * the client's readable is paused while a batch's promise runs, so the server is held back by
 * gRPC flow control instead of events piling up in memory.
 *
 * Caught up is known two ways, whichever comes first: the server's `caughtUp` message (ESDB
 * 23.10+), or seeing the head position read when the subscription started (older servers).
 * Either way `onCaughtUp` fires only once every event before that point has been handled.
 */
class EsdbSubscription {
  private readable: ReturnType<EsdbClient['subscribeToAll']> | undefined;
  private readonly queue: RecordedEvent[] = [];
  private stopped = false;
  private pumpScheduled = false;
  private running: Promise<void> | undefined;
  private lastSeen: GlobalPosition;
  /** Events enqueued and handled so far; `caughtUpAt` is the enqueued count that means caught up. */
  private enqueued = 0;
  private handled = 0;
  private caughtUpAt: number | undefined;
  private caughtUpFired = false;
  private headTarget: GlobalPosition | undefined;
  /** Data events still buffered in the readable when the server said "caught up". */
  private bufferedBeforeCaughtUp: number | undefined;
  private readonly maxBatchSize: number;

  constructor(
    private readonly client: EsdbClient,
    private readonly options: SubscribeToAllOptions,
    private readonly readHead: () => Promise<GlobalPosition>,
  ) {
    this.lastSeen = options.after ?? START;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 100);
  }

  start(): void {
    const after = this.options.after ?? START;
    if (this.options.onCaughtUp) {
      this.readHead().then(
        (head) => {
          if (this.stopped) return;
          if (comparePositions(this.lastSeen, head) >= 0) this.markCaughtUp();
          else this.headTarget = head;
        },
        (error: unknown) => this.fail(mapEsdbError(error)),
      );
    }
    const readable = this.client.subscribeToAll({
      fromPosition: toEsdbReadPosition(after),
      filter: excludeSystemEvents(),
    });
    this.readable = readable;
    readable.on('data', (resolved: AllStreamResolvedEvent) => this.onData(resolved));
    readable.on('caughtUp', () => {
      if (this.stopped) return;
      const buffered = readable.readableLength;
      if (buffered === 0) this.markCaughtUp();
      else this.bufferedBeforeCaughtUp = buffered;
    });
    readable.on('error', (error: Error) => this.fail(mapEsdbError(error)));
    readable.on('end', () => this.fail(new EventStoreUnavailableError('EventStoreDB ended the $all subscription')));
  }

  private onData(resolved: AllStreamResolvedEvent): void {
    if (this.stopped) return;
    const event = toRecordedEvent(resolved);
    if (event && comparePositions(event.position, this.lastSeen) > 0) {
      this.lastSeen = event.position;
      if (!isSystemEvent(event)) {
        this.queue.push(event);
        this.enqueued++;
      }
    }
    if (this.bufferedBeforeCaughtUp !== undefined && --this.bufferedBeforeCaughtUp <= 0) {
      this.bufferedBeforeCaughtUp = undefined;
      this.markCaughtUp();
    }
    if (this.headTarget && comparePositions(this.lastSeen, this.headTarget) >= 0) {
      this.headTarget = undefined;
      this.markCaughtUp();
    }
    if (this.queue.length >= this.maxBatchSize) this.readable?.pause();
    this.schedulePump();
  }

  private markCaughtUp(): void {
    if (this.caughtUpAt !== undefined || this.caughtUpFired) return;
    this.caughtUpAt = this.enqueued;
    this.maybeFireCaughtUp();
  }

  private maybeFireCaughtUp(): void {
    if (this.caughtUpFired || this.stopped || this.caughtUpAt === undefined || this.handled < this.caughtUpAt) return;
    this.caughtUpFired = true;
    this.headTarget = undefined;
    this.bufferedBeforeCaughtUp = undefined;
    try {
      this.options.onCaughtUp?.();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Deferred, so events the readable emits in one burst are handed over as one batch. */
  private schedulePump(): void {
    if (this.pumpScheduled || this.running) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      if (!this.running) this.running = this.pump().finally(() => (this.running = undefined));
    });
  }

  private async pump(): Promise<void> {
    while (!this.stopped && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatchSize);
      this.readable?.pause();
      try {
        await this.options.onEvents(batch);
      } catch (error) {
        this.fail(error);
        return;
      }
      this.handled += batch.length;
      this.maybeFireCaughtUp();
      if (!this.stopped && this.queue.length < this.maxBatchSize) this.readable?.resume();
    }
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    void this.stop();
    this.options.onError?.(error);
  }

  async stop(): Promise<void> {
    const running = this.running;
    if (!this.stopped) {
      this.stopped = true;
      this.queue.length = 0;
      const readable = this.readable;
      if (readable) {
        // Late errors after a cancel are expected; keep a listener so none goes unhandled.
        readable.removeAllListeners('data');
        readable.on('error', () => {});
        await readable.unsubscribe().catch(() => {});
        readable.destroy();
      }
    }
    await running?.catch(() => {});
    await this.running?.catch(() => {});
  }
}

/** Wraps an already-connected client (tests use a fake one). */
export function createEsdbEventStore(client: EsdbClient): EventStore {
  return new EsdbEventStore(client);
}

/**
 * `kurrentdb://` and `kurrentdb+discover://` (KurrentDB's own names) mean the same as `esdb://`
 * and `esdb+discover://`, which are the only schemes the v6 client parses.
 */
export function toEsdbConnectionString(connectionString: string): string {
  return connectionString.replace(/^kurrentdb(\+discover)?:\/\//, (_, discover: string | undefined) => `esdb${discover ?? ''}://`);
}

/**
 * Connects to EventStoreDB/KurrentDB, e.g. `esdb://localhost:2113?tls=false`, and checks that
 * it answers, so a wrong URL or a stopped server fails at start with EventStoreUnavailableError.
 */
export async function openEsdbEventStore({
  connectionString,
  logger,
}: {
  connectionString: string;
  logger?: EventStoreLogger;
}): Promise<EventStore> {
  const client = EventStoreDBClient.connectionString(toEsdbConnectionString(connectionString));
  try {
    // One event at most: enough to prove the server answers and the credentials are accepted.
    await client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }).toArray();
  } catch (error) {
    await client.dispose().catch(() => {});
    const mapped = mapEsdbError(error);
    if (mapped instanceof EventStoreUnavailableError) throw mapped;
    throw new EventStoreUnavailableError(
      `EventStoreDB at ${redact(connectionString)} refused the connection check: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  logger?.info({ eventStore: 'esdb', url: redact(connectionString) }, 'connected to EventStoreDB');
  return createEsdbEventStore(client);
}

/** Connection strings may carry `user:password@`; never put those in an error message. */
function redact(connectionString: string): string {
  return connectionString.replace(/\/\/[^@/]*@/, '//***@');
}
