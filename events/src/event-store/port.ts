/**
 * The EventStore port. Adapters: PGlite (embedded default), PostgreSQL, EventStoreDB.
 * Every adapter passes the one contract suite in `test-support/event-store-contract.ts`.
 */

/**
 * A place in the store's global order ("$all"). Totally ordered by (commit, prepare).
 * PostgreSQL/PGlite: commit = writing transaction id, prepare = row sequence, which is what
 * makes the order safe against transactions that commit late. EventStoreDB: its own
 * commit/prepare log positions.
 */
export interface GlobalPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START: GlobalPosition = Object.freeze({ commit: -1n, prepare: -1n });

export function comparePositions(a: GlobalPosition, b: GlobalPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** `commit/prepare`, for checkpoints stored as text. */
export function positionToString(position: GlobalPosition): string {
  return `${position.commit}/${position.prepare}`;
}

export function positionFromString(text: string): GlobalPosition {
  const match = /^(-?\d+)\/(-?\d+)$/.exec(text);
  if (!match) throw new Error(`Not a global position: "${text}"`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

/**
 * - `any`: no check.
 * - `no_stream`: the stream must not exist (used to reserve e-mails).
 * - `stream_exists`: the stream must exist.
 * - a number: the revision of the stream's last event (first event is revision 0).
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface NewEvent {
  /** UUID; appending the same ids again at the same place is an idempotent no-op. */
  id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

export interface RecordedEvent {
  id: string;
  streamId: string;
  /** 0-based position inside its stream. */
  revision: number;
  position: GlobalPosition;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: Date;
}

export interface AppendResult {
  /** Revision of the last event now in the stream; pass it as the next expected revision. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: GlobalPosition;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive. Forwards default 0; backwards default the end. */
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Default START. */
  after?: GlobalPosition;
  maxCount?: number;
  /**
   * The metadata keys this reader uses: a store may deliver each event's metadata with only
   * these keys (the SQL stores do), so a long read neither sends nor parses the rest.
   * Default: all of it.
   */
  metadataKeys?: readonly string[];
}

export interface SubscribeToAllOptions {
  /** Exclusive: deliver events strictly after this position. Default START. */
  after?: GlobalPosition;
  /**
   * Called with batches in global order. The next batch is not delivered until the returned
   * promise settles, so a handler can store its checkpoint with its writes. A rejection stops
   * the subscription and is reported through `onError`.
   */
  onEvents: (events: RecordedEvent[]) => Promise<void> | void;
  /** Called once, when the subscription has delivered everything that existed when it started. */
  onCaughtUp?: () => void;
  onError?: (error: unknown) => void;
  /** Upper bound on a batch. */
  maxBatchSize?: number;
  /** As ReadAllOptions.metadataKeys, for every batch. */
  metadataKeys?: readonly string[];
  /**
   * Event types whose personal fields this subscriber never reads: a store that keeps personal
   * data sealed (EncryptingEventStore) delivers them still sealed instead of decrypting them.
   * Other stores hold nothing sealed and ignore it.
   */
  sealedTypes?: readonly string[];
  /**
   * Asked with each batch before it is delivered: events of it whose personal fields this
   * subscriber will not read (a chat line the batch itself pushes out of the history, say). A
   * store that keeps personal data sealed delivers these still sealed, the same objects it was
   * handed; other stores never ask.
   */
  sealedEvents?: (events: readonly RecordedEvent[]) => ReadonlySet<RecordedEvent>;
}

export interface Subscription {
  /** Stops delivery; resolves when no handler call is running any more. */
  stop(): Promise<void>;
}

export interface EventStore {
  /** Short name for health and logs: `pglite`, `postgres`, `esdb`. */
  readonly kind: string;
  append(streamId: string, events: NewEvent[], expectedRevision?: ExpectedRevision): Promise<AppendResult>;
  /** Returns [] for a stream that does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event in $all, or START when empty. */
  headPosition(): Promise<GlobalPosition>;
  subscribeToAll(options: SubscribeToAllOptions): Subscription;
  /**
   * The store server's current time, the one clock every process writing to it shares
   * (PostgreSQL/PGlite: `clock_timestamp()`). Absent when the store cannot tell (EventStoreDB).
   */
  now?(): Promise<Date>;
  close(): Promise<void>;
}

/** Thrown when the expected revision does not match the stream. Nothing was appended. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** Actual last revision, or -1 when the stream does not exist. */
    readonly actual: number,
  ) {
    super(`Wrong expected revision on "${streamId}": expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** Thrown when the store cannot be reached; the command side answers 503. */
export class EventStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreUnavailableError';
  }
}
