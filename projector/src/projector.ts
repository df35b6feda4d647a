import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { positionToString, UPCAST_METADATA_KEYS, type EventStore, type RecordedEvent, type Subscription } from '@pass/events';
import type { LivePublisher } from './live/publisher';
import { LivePusher, type PushMode } from './live/pusher';
import { projectorMetrics, type ProjectorMetrics } from './metrics';
import { parseUntilInvalid, projectInto } from './projections/apply';
import { UNPROJECTED_TYPES } from './projections/batch';
import type { LiveNotice, PositionedEvent } from './projections/types';
import type { Keyspace, ReadModelStore } from './read-models/port';
import type { WindowSize } from './subscription/write-window';
import { CatchUpPipeline } from './subscription/catch-up-pipeline';
import { CHECK_INTERVAL_MS, CheckpointWatch } from './subscription/checkpoint-watch';
import type { ProjectorHealth } from './subscription/health';
import { LAG_SCAN_LIMIT, lagOf } from './subscription/lag';
import { ProjectorProgress } from './subscription/progress';
import { RetryBackoff } from './subscription/retry';
import { SealedLines } from './subscription/sealed-lines';

export interface ProjectorDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  /** Live events after each stored batch; omit for a rebuild that nobody watches yet. */
  publisher?: LivePublisher | undefined;
  logger: Logger;
  /** Keyspace to fill; default: the active one at start. */
  keyspaceId?: string;
  maxBatchSize?: number;
  metrics?: Registry;
  /** Called after every stored batch with the number of events applied (rebuild progress). */
  onBatch?: (applied: number, position: string) => void;
  /** Called each time the subscription (re)starts, before it reads the checkpoint. */
  onSubscribe?: (keyspace: Keyspace) => Promise<void>;
  /**
   * How often an idle projector checks that its keyspace still holds the checkpoint it stored
   * (Redis may have restarted empty); default 2000 ms. 0: never (it then notices on the next batch).
   */
  checkIntervalMs?: number;
  /** Catch-up batches stored together (CatchUpPipeline's CATCH_UP_WINDOW by default). */
  catchUpWindow?: WindowSize;
}

export interface ProjectorStatus {
  keyspace: string;
  running: boolean;
  caughtUp: boolean;
  position: string;
  headPosition: string;
  /** Events after the checkpoint; `lagEventsCapped` when the count stopped at LAG_SCAN_LIMIT. */
  lagEvents: number;
  lagEventsCapped: boolean;
  /** Seconds the oldest unprojected event has been waiting. */
  lagSeconds: number;
  eventsProjected: number;
  lastError: string | null;
}

export interface Projector {
  readonly keyspace: Keyspace;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): Promise<ProjectorStatus>;
  health(): ProjectorHealth;
  /** Resolves once everything the store held when called has been projected. */
  settled(): Promise<void>;
  /** Resolves once the subscription has caught up and follows live events (what /readyz reports). */
  caughtUp(): Promise<void>;
  /** Stops or resumes live events (a rebuild stays quiet until it takes over). */
  setPublisher(publisher: LivePublisher | undefined): void;
}

/**
 * A live batch this large (or as large as `maxBatchSize`) means events arrive faster than they
 * are stored one batch at a time: the projector then resubscribes from its checkpoint, so the
 * backlog is caught up like one at start-up (pipelined, coalesced pushes).
 */
const BEHIND_BATCH = 250;

/**
 * Events the subscription reads at a time when `maxBatchSize` is not given. A live batch rarely
 * comes near it (one of BEHIND_BATCH already switches to a catch-up); a catch-up reads its pages
 * this large, so fewer queries, pages read ahead cover more of the projection, and a window
 * (CATCH_UP_WINDOW) is a few pages.
 */
const READ_PAGE = 5_000;

/**
 * Catch-up subscription from the stored checkpoint into one keyspace. Each delivered batch is
 * projected and stored with its checkpoint in one atomic write, then announced to browsers
 * (while catching up, the announcements are coalesced: see LivePusher). A failed batch (read
 * models or store unreachable, an event it cannot read) stops the subscription; it restarts from
 * the stored checkpoint after a growing delay (RetryBackoff), so nothing is applied twice or
 * skipped, and the error shows in `status().lastError` until a batch succeeds.
 */
export function createProjector(deps: ProjectorDeps): Projector {
  return new KeyspaceProjector(deps);
}

class KeyspaceProjector implements Projector {
  private readonly log: Logger;
  private readonly metrics: ProjectorMetrics | undefined;
  private readonly progress = new ProjectorProgress();
  private readonly retry = new RetryBackoff();
  private readonly pusher: LivePusher;
  private readonly pipeline: CatchUpPipeline;
  private readonly sealedLines = new SealedLines(() => this.pipeline.catchingUp);
  private readonly watch: CheckpointWatch;
  private readonly behindAt: number;
  private space: Keyspace | undefined;
  private subscription: Subscription | undefined;
  private running = false;
  private isCaughtUp = false;
  private resubscribing = false;
  /** A (re)subscription on its way (reading the checkpoint, pointing readers): stop() waits for it. */
  private subscribing: Promise<void> | undefined;
  private markCaughtUp = () => {};
  private readonly caughtUpOnce = new Promise<void>((done) => (this.markCaughtUp = done));

  constructor(private readonly deps: ProjectorDeps) {
    this.log = deps.logger.child({ component: 'projector' });
    this.metrics = deps.metrics ? projectorMetrics(deps.metrics) : undefined;
    this.behindAt = Math.min(BEHIND_BATCH, deps.maxBatchSize ?? BEHIND_BATCH);
    const keyspace = () => this.keyspace;
    this.pusher = new LivePusher(deps.publisher, keyspace, this.log);
    this.pipeline = new CatchUpPipeline({
      keyspace,
      pushMode: () => this.pusher.catchUpMode(),
      stored: (...batch) => this.stored(...batch),
      indexed: (rows, ms) => this.log.info({ keyspace: this.keyspace.id, rows, ms: Math.round(ms) }, 'search index built'),
      ...(deps.catchUpWindow ? { window: deps.catchUpWindow } : {}),
    });
    this.watch = new CheckpointWatch({
      everyMs: deps.checkIntervalMs ?? CHECK_INTERVAL_MS,
      keyspace,
      idle: () => this.running && this.subscription !== undefined && !this.pipeline.busy,
      expected: () => this.progress.checkpoint,
      lost: (found, expected) => this.readModelsLost(found, expected),
    });
  }

  get keyspace(): Keyspace {
    if (!this.space) throw new Error('Projector not started');
    return this.space;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.space ??= this.deps.keyspaceId ? this.deps.readModels.keyspace(this.deps.keyspaceId) : await this.deps.readModels.active();
    this.running = true;
    this.metrics?.running.add(this);
    this.watch.start();
    await this.subscribeOrRetry();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.watch.stop();
    this.metrics?.running.delete(this);
    this.retry.cancel();
    // A subscription on its way finishes first and is then stopped with the rest, so nothing it
    // does (pointing readers at this keyspace, projecting) lands after whoever stopped it moves on.
    await this.subscribing;
    await this.subscription?.stop();
    this.subscription = undefined;
    await this.pipeline.drain();
    this.pipeline.drop();
  }

  setPublisher(publisher: LivePublisher | undefined): void {
    this.pusher.setPublisher(publisher);
  }

  async settled(): Promise<void> {
    await this.progress.reach(await this.deps.eventStore.headPosition());
  }

  caughtUp(): Promise<void> {
    return this.caughtUpOnce;
  }

  async status(): Promise<ProjectorStatus> {
    const keyspace = this.keyspace;
    const lag = await lagOf(keyspace, this.deps.eventStore);
    const { eventsProjected, lastError } = this.progress;
    return { keyspace: keyspace.id, running: this.running, caughtUp: this.isCaughtUp, ...lag, lagEventsCapped: lag.lagEvents >= LAG_SCAN_LIMIT, eventsProjected, lastError };
  }

  health(): ProjectorHealth {
    const { eventsProjected, lastError, lastFailure } = this.progress;
    return {
      keyspace: this.keyspace.id,
      running: this.running,
      caughtUp: this.isCaughtUp,
      position: positionToString(this.progress.position),
      eventsProjected,
      lastError,
      lastFailure: lastFailure ? { message: lastFailure.message, at: lastFailure.at.toISOString() } : null,
    };
  }

  private label() {
    return { keyspace: this.keyspace.id };
  }

  private async subscribe(): Promise<void> {
    // A batch still being applied (the subscription failed meanwhile) lands before the checkpoint is read.
    await this.pipeline.drain();
    await this.deps.onSubscribe?.(this.keyspace);
    const [checkpoint, index] = await Promise.all([this.keyspace.checkpoint(), this.keyspace.indexState()]);
    this.pipeline.begin(checkpoint, index);
    this.progress.restart(checkpoint);
    this.pusher.restarted();
    this.log.info({ keyspace: this.keyspace.id, from: checkpoint ?? 'start' }, 'projector subscribing');
    const me: Subscription = this.deps.eventStore.subscribeToAll({
      after: this.progress.position,
      maxBatchSize: this.deps.maxBatchSize ?? READ_PAGE,
      sealedTypes: UNPROJECTED_TYPES,
      sealedEvents: (events) => this.sealedLines.choose(events),
      // Projections read no metadata but what upcasting needs: the rest is neither sent nor parsed.
      metadataKeys: UPCAST_METADATA_KEYS,
      onEvents: this.watch.track((recorded) => this.handle(recorded)),
      onCaughtUp: () => this.onCaughtUp(),
      onError: (error) => {
        if (this.subscription !== me) return; // replaced meanwhile (the checkpoint watch restarted it)
        this.subscription = undefined;
        this.failed(error);
      },
    });
    this.subscription = me;
  }

  private subscribeOrRetry(): Promise<void> {
    const subscribing = this.subscribe().catch((error: unknown) => this.subscribeFailed(error));
    this.subscribing = subscribing;
    void subscribing.finally(() => {
      if (this.subscribing === subscribing) this.subscribing = undefined;
    });
    return subscribing;
  }

  /** One delivered batch: catch-up (pipelined, from the mirror) or live (from a snapshot). */
  private async handle(recorded: RecordedEvent[]): Promise<void> {
    const started = performance.now();
    // Events before an unreadable one are stored first; the bad one stops the subscription
    // (and is retried from the checkpoint) rather than being skipped.
    const read = parseUntilInvalid(recorded);
    const unreadable = read.error;
    const parsed = this.sealedLines.mark(recorded, read.parsed);
    if (parsed.length === 0 && unreadable) throw unreadable;
    if (this.pipeline.catchingUp) return this.pipeline.handle(parsed, unreadable, started);
    // Never expected: a batch chosen while catching up, delivered once caught up.
    if (parsed.some((positioned) => positioned.sealed)) throw new Error('A live batch holds chat lines left sealed for a catch-up; re-reading it');
    // Live: the keyspace must still be where this subscription left it (Redis may have restarted empty).
    await this.pipeline.landed();
    const projected = await projectInto(this.keyspace, parsed, this.progress.checkpoint);
    await this.stored(parsed, projected.applied, projected.live, started, 'batch');
    if (unreadable) throw unreadable;
    if (recorded.length >= this.behindAt) void this.catchUpAgain();
  }

  /** After a batch is stored: position, metrics, progress, then its live events. */
  private async stored(parsed: PositionedEvent[], applied: number, live: LiveNotice[], started: number, push: PushMode): Promise<void> {
    this.progress.stored(parsed[parsed.length - 1]!.position, applied);
    this.retry.reset();
    this.metrics?.eventsProjected.inc(this.label(), applied);
    this.metrics?.batchSeconds.observe(this.label(), (performance.now() - started) / 1000);
    this.deps.onBatch?.(applied, positionToString(this.progress.position));
    await this.pusher.afterStored(live, push);
    // Settled means stored and broadcast, so whoever waits on it sees the live events too.
    if (this.pusher.quiet) this.progress.release();
  }

  /**
   * The last catch-up batch may still be applying: caught up once it is stored and what catch-up
   * held back is pushed.
   */
  private onCaughtUp(): void {
    const current = this.subscription;
    const pushed = this.pipeline.finish(async () => {
      await this.pusher.pushBacklog();
      this.progress.release();
    });
    void (async () => {
      try {
        await pushed;
      } catch (error) {
        // Nothing else would notice: the subscription now waits for new events.
        if (this.subscription !== current || !current) return;
        this.subscription = undefined;
        await current.stop();
        this.failed(error);
        return;
      }
      this.isCaughtUp = true;
      this.markCaughtUp();
      this.log.info({ keyspace: this.keyspace.id, position: positionToString(this.progress.position), eventsProjected: this.progress.eventsProjected }, 'projector caught up');
    })();
  }

  /** Fallen behind while live: a new subscription from the stored checkpoint catches up. */
  private async catchUpAgain(): Promise<void> {
    if (this.resubscribing || !this.running || !this.subscription) return;
    this.resubscribing = true;
    try {
      this.log.info({ keyspace: this.keyspace.id, position: positionToString(this.progress.position) }, 'projector behind; catching up again');
      await this.resubscribe();
    } finally {
      this.resubscribing = false;
    }
  }

  /**
   * Re-projects from the stored checkpoint (from 0 when gone) and, in the runtime, points
   * readers back here.
   */
  private async readModelsLost(found: string | null, expected: string | null): Promise<void> {
    this.log.warn({ keyspace: this.keyspace.id, stored: found ?? 'none', expected }, 'read models lost under the projector (Redis restarted empty?); re-projecting from their checkpoint');
    this.metrics?.errors.inc(this.label());
    await this.resubscribe();
  }

  /** Stops the subscription (once its batch handler has returned) and starts a new one from the stored checkpoint. */
  private async resubscribe(): Promise<void> {
    const current = this.subscription;
    this.subscription = undefined;
    await current?.stop();
    if (this.running && !this.subscription) await this.subscribeOrRetry();
  }

  /** The subscription stopped on an error: restart it from the stored checkpoint, after a growing delay. */
  private failed(error: unknown): void {
    this.pipeline.drop();
    this.progress.failed(error);
    this.metrics?.errors.inc(this.label());
    this.log.error({ err: error, retryInMs: this.retry.delayMs }, 'projection failed; restarting from the checkpoint');
    if (this.running) this.retry.schedule(() => void this.retrySubscribe());
  }

  private subscribeFailed(error: unknown): void {
    this.progress.failed(error);
    this.log.error({ err: error, retryInMs: this.retry.delayMs }, 'projector could not read its checkpoint; retrying');
    this.retry.schedule(() => void this.retrySubscribe());
  }

  private async retrySubscribe(): Promise<void> {
    if (this.running) await this.subscribeOrRetry();
  }
}
