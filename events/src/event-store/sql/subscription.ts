/**
 * A subscription to `$all` on the SQL store: reads pages after its position, hands each to the
 * handler, and once caught up waits for a wake-up (an append here, or a notification from
 * another process through the adapter) or the fallback poll. Reads that fail because the
 * database is unreachable are retried, backing off.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { comparePositions, EventStoreUnavailableError, START, type GlobalPosition, type RecordedEvent, type SubscribeToAllOptions, type Subscription } from '../port';
import type { EventStoreLogger } from './client';

const DEFAULT_BATCH = 500;

/** Which subscription's handler is running, so stop() called from inside it does not wait for itself. */
const handlerContext = new AsyncLocalStorage<object>();

/** The reads a subscription makes (SqlReads). */
export interface SubscriptionReads {
  readPage(after: GlobalPosition, limit: number, keys: readonly string[] | undefined, bulk: boolean): Promise<RecordedEvent[]>;
  headPosition(): Promise<GlobalPosition>;
  hasPending(after: GlobalPosition): Promise<boolean>;
}

export interface SubscriptionTiming {
  /** SqlEventStoreOptions.pollIntervalMs. */
  pollIntervalMs: number;
  /** SqlEventStoreOptions.wakeGatherMs. */
  wakeGatherMs: number;
  logger: EventStoreLogger | undefined;
}

export class PollingSubscription implements Subscription {
  private readonly maxBatch: number;
  private readonly token = {};
  private stopped = false;
  private signalled = false;
  private wakeUp: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private after: GlobalPosition;
  private caughtUp = false;
  private retryDelay = 0;
  private pendingDelay = 0;
  /** "Caught up" means: everything that existed when the subscription started. */
  private startHead: GlobalPosition | undefined;
  /** The page after a full batch, read while the handler works on that batch (catch-up). */
  private ahead: { after: GlobalPosition; page: Promise<RecordedEvent[]> } | undefined;

  /**
   * `detach` takes it off the store's lists (wake-ups, open subscriptions) when it stops or ends.
   * Nothing runs before `start()`.
   */
  constructor(
    private readonly options: SubscribeToAllOptions,
    private readonly reads: SubscriptionReads,
    private readonly timing: SubscriptionTiming,
    private readonly detach: (subscription: PollingSubscription) => void,
  ) {
    this.maxBatch = Math.max(1, options.maxBatchSize ?? DEFAULT_BATCH);
    this.after = options.after ?? START;
  }

  /** Wakes the subscription: an append was acknowledged, here or in another process. */
  readonly signal = (): void => {
    this.signalled = true;
    this.wakeUp?.();
  };

  start(): void {
    this.running = this.loop().catch((error: unknown) => {
      if (this.stopped) return;
      if (this.options.onError) this.options.onError(error);
      else this.timing.logger?.error({ err: error }, 'event store subscription stopped');
    });
    void this.running.finally(() => this.detach(this));
  }

  readonly stop = async (): Promise<void> => {
    this.stopped = true;
    this.detach(this);
    this.wakeUp?.();
    // Called from inside the handler: waiting for the handler would wait for ourselves.
    if (handlerContext.getStore() === this.token) return;
    await this.running;
  };

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const batch = await this.nextBatch();
      if (this.stopped) return;
      if (batch === undefined) continue;
      await this.deliver(batch);
      if (batch.length === this.maxBatch || this.stopped) continue;
      await this.waitForMore(batch.length);
    }
  }

  /** The next page; undefined when the database could not be reached (after waiting to retry) or on stop. */
  private async nextBatch(): Promise<RecordedEvent[] | undefined> {
    try {
      this.startHead ??= await this.reads.headPosition();
      // In bulk until caught up: a live read brings a few events.
      const next = this.ahead?.after === this.after ? this.ahead.page : this.read(this.after, !this.caughtUp);
      this.ahead = undefined;
      const batch = await next;
      this.retryDelay = 0;
      return batch;
    } catch (error) {
      if (this.stopped) return undefined;
      if (!(error instanceof EventStoreUnavailableError)) throw error;
      this.retryDelay = Math.min(Math.max(this.retryDelay * 2, 100), 5_000);
      this.timing.logger?.warn({ err: error, retryInMs: this.retryDelay }, 'event store subscription: read failed, retrying');
      await this.sleep(this.retryDelay);
      return undefined;
    }
  }

  private read(from: GlobalPosition, bulk: boolean): Promise<RecordedEvent[]> {
    // Cleared before reading: an append acknowledged during the read sets it again.
    this.signalled = false;
    return this.reads.readPage(from, this.maxBatch, this.options.metadataKeys, bulk);
  }

  /** Hands a page to the handler (reading the next one meanwhile when it was full); tells when caught up. */
  private async deliver(batch: RecordedEvent[]): Promise<void> {
    if (batch.length > 0) {
      const end = batch[batch.length - 1]!.position;
      if (batch.length === this.maxBatch) {
        // More is likely waiting: the store reads it while the handler runs, instead of after.
        const page = this.read(end, true);
        page.catch(() => undefined); // awaited (and its error handled) on the next turn, if any
        this.ahead = { after: end, page };
      }
      await handlerContext.run(this.token, () => this.options.onEvents(batch));
      this.after = end;
    }
    if (!this.caughtUp && comparePositions(this.after, this.startHead!) >= 0) {
      this.caughtUp = true;
      this.options.onCaughtUp?.();
    }
  }

  /** After a page that was not full: waits for a wake-up or the poll, or looks again soon when events are held back. */
  private async waitForMore(batchLength: number): Promise<void> {
    if (batchLength === 0 && (await this.reads.hasPending(this.after))) {
      // Committed events wait behind an older transaction; it may belong to a writer that
      // never notifies, so look again soon (backing off) instead of waiting for a wake-up.
      this.pendingDelay = Math.min(Math.max(this.pendingDelay * 2, 2), this.timing.pollIntervalMs);
      await this.sleep(this.pendingDelay);
      return;
    }
    this.pendingDelay = 0;
    await this.sleep(this.timing.pollIntervalMs);
    if (this.signalled && this.timing.wakeGatherMs > 0 && !this.stopped) await new Promise((r) => setTimeout(r, this.timing.wakeGatherMs));
  }

  /** Resolves on a wake-up since the last read, or after `ms`. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((done) => {
      if (this.signalled || this.stopped) return done();
      this.wakeUp = done;
      this.timer = setTimeout(done, ms);
    }).finally(() => {
      clearTimeout(this.timer);
      this.wakeUp = undefined;
    });
  }
}
