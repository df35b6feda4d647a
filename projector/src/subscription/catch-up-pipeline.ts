import type { PushMode } from '../live/pusher';
import { ConcurrentProjectionError } from '../projections/apply';
import type { LiveNotice, PositionedEvent, ProjectedBatch } from '../projections/types';
import { CatchUpMirror } from './catch-up-mirror';
import type { Keyspace } from '../read-models/port';
import type { IndexState } from '../read-models/types';
import { WriteWindow, type WindowSize } from './write-window';

/**
 * A catch-up stores its batches in windows of this many events (or this many writes, whichever
 * comes first): see WriteWindow and docs/architecture.md, "A catch-up stores windows".
 */
export const CATCH_UP_WINDOW: WindowSize = { events: 50_000, writes: 20_000 };

export interface CatchUpPipelineDeps {
  keyspace: () => Keyspace;
  /** Decided per batch before it is projected (see LivePusher.catchUpMode). */
  pushMode: () => 'flush' | 'hold';
  /** Bookkeeping once a batch is stored: position, metrics, live events. */
  stored: (parsed: PositionedEvent[], applied: number, live: LiveNotice[], started: number, push: PushMode) => Promise<void>;
  /** Told once a deferred search index is built (rows indexed, milliseconds). */
  indexed?: (rows: number, ms: number) => void;
  /** Default CATCH_UP_WINDOW; `{ events: 1 }` stores every batch on its own. */
  window?: WindowSize;
}

/**
 * Catch-up: each batch is projected from the mirror of what this projector stored (not read
 * back from the keyspace); batches are stored together, a window at a time (WriteWindow), and a
 * window is left applying while the next batches are read and projected. At most one window is
 * in flight, and every apply still checks the checkpoint the previous one stored. A batch whose
 * live events must go out now (push mode 'flush') closes its window at once. Any failure drops
 * the mirror and the window: the subscription restarts from what is stored.
 */
export class CatchUpPipeline {
  private mirror: CatchUpMirror | undefined;
  /** The batch being applied while the next one is projected, with its bookkeeping. */
  private inFlight: Promise<void> | undefined;
  /** Batches sent but not yet stored. */
  private unstored = 0;
  private readonly window: WriteWindow;

  constructor(private readonly deps: CatchUpPipelineDeps) {
    const size = deps.window ?? CATCH_UP_WINDOW;
    this.window = new WriteWindow(size.events, size.writes);
  }

  get catchingUp(): boolean {
    return this.mirror !== undefined;
  }

  /** Catching up or a batch not stored yet: the keyspace's checkpoint is about to move. */
  get busy(): boolean {
    return this.mirror !== undefined || this.unstored > 0;
  }

  /**
   * A new subscription from `checkpoint`, the keyspace's (null: empty), whose search index is in
   * state `index`. Call `drain` first.
   */
  begin(checkpoint: string | null, index: IndexState): void {
    this.window.clear();
    this.mirror = new CatchUpMirror(this.deps.keyspace(), checkpoint, index);
  }

  async handle(parsed: PositionedEvent[], unreadable: Error | undefined, started: number): Promise<void> {
    const previous = this.inFlight;
    // Live events read the keyspace after their batch (figures, the chat after a clear), so
    // the batch that pushes is not overlapped by the next one; the others hold theirs back.
    const push = this.deps.pushMode();
    const projected = await this.failing(this.mirror!.project(parsed));
    this.window.add(projected, parsed, started);
    if (!unreadable && push !== 'flush' && !this.window.full) return;
    const current = this.storeWindow(previous, push);
    // One window in flight at most: the previous one must be stored before this returns.
    await this.failing(previous);
    if (unreadable || push === 'flush') await this.failing(current);
    if (unreadable) throw unreadable;
  }

  /** Stores what the window holds (see store). */
  private storeWindow(previous: Promise<void> | undefined, push: PushMode): Promise<void> | undefined {
    const taken = this.window.take();
    this.mirror?.windowStored();
    return taken ? this.store(taken.projected, previous, taken.last, taken.started, push) : previous;
  }

  /** Applies a projected batch now; its bookkeeping waits for the previous batch's. */
  private store(projected: ProjectedBatch, previous: Promise<void> | undefined, parsed: PositionedEvent[], started: number, push: PushMode): Promise<void> {
    const keyspace = this.deps.keyspace();
    const applying = projected.batch ? keyspace.apply(projected.batch) : Promise.resolve('applied' as const);
    const current = (async () => {
      await previous;
      if ((await applying) === 'stale') throw new ConcurrentProjectionError(keyspace.id);
      await this.deps.stored(parsed, projected.applied, projected.live, started, push);
    })();
    this.inFlight = current;
    this.unstored++;
    const done = () => void this.unstored--;
    current.then(done, done); // a failure is reported by the next batch, drain() or finish()
    return current;
  }

  /**
   * Caught up: no mirror from now on. Once the last batch is stored, a deferred search index is
   * built, then `then` runs; the next live batch waits for all of it.
   */
  finish(then: () => Promise<void>): Promise<void> {
    const mirror = this.mirror;
    this.mirror = undefined;
    const last = this.storeWindow(this.inFlight, 'hold');
    const finished = (async () => {
      await last;
      const started = performance.now();
      const rows = (await mirror?.buildIndex()) ?? 0;
      if (rows > 0) this.deps.indexed?.(rows, performance.now() - started);
      await then();
    })();
    finished.catch(() => undefined); // reported by the caller and by whoever waits for it next
    this.inFlight = finished;
    return finished;
  }

  /** Waits for what is in flight, failing with it: a live batch must not land on a failed one. */
  async landed(): Promise<void> {
    await this.inFlight;
  }

  /** Waits for what is in flight, whatever its outcome, and forgets it. */
  async drain(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
    this.inFlight = undefined;
  }

  drop(): void {
    this.mirror = undefined;
    this.window.clear();
  }

  private async failing<T>(step: T): Promise<Awaited<T>> {
    try {
      return await step;
    } catch (error) {
      this.drop();
      throw error;
    }
  }
}
