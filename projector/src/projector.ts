import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  START,
  comparePositions,
  positionFromString,
  positionToString,
  type EventStore,
  type GlobalPosition,
  type RecordedEvent,
  type Subscription,
} from '@pass/events';
import { LiveBacklog } from './live/coalesce';
import { liveEventsFor, type LivePublisher } from './live/publisher';
import { projectorMetrics, type ProjectorMetrics } from './metrics';
import { LAG_SCAN_LIMIT, lagOf } from './rebuild/status';
import { ConcurrentProjectionError, parseUntilInvalid, projectInto } from './projections/apply';
import type { LiveNotice, PositionedEvent } from './projections/batch';
import { CatchUpMirror } from './projections/catch-up';
import type { Keyspace, ReadModelStore } from './read-models/port';

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
  /** Resolves once everything the store held when called has been projected. */
  settled(): Promise<void>;
  /** Resolves once the subscription has caught up and follows live events (what /readyz reports). */
  caughtUp(): Promise<void>;
  /** Stops or resumes live events (a rebuild stays quiet until it takes over). */
  setPublisher(publisher: LivePublisher | undefined): void;
}

const CHECK_INTERVAL_MS = 2_000;
/**
 * While catching up, browsers hear the coalesced state at most this often instead of after
 * every batch: each push waits for its batch to be stored (no overlap with the next one), and
 * intermediate figures are of no use to anyone.
 */
export const CATCH_UP_PUSH_MS = 250;
/**
 * A live batch this large (or as large as `maxBatchSize`) means events arrive faster than they
 * are stored one batch at a time: the projector then resubscribes from its checkpoint, so the
 * backlog is caught up like one at start-up (pipelined, coalesced pushes).
 */
const BEHIND_BATCH = 250;
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;

/**
 * Catch-up subscription from the stored checkpoint into one keyspace. Each delivered batch is
 * projected and stored with its checkpoint in one atomic write, then announced to browsers
 * (while catching up, the announcements are coalesced: see CATCH_UP_PUSH_MS and LiveBacklog). A
 * failed batch (read models or store unreachable, an event it cannot read) stops the
 * subscription; it restarts from the stored checkpoint after a growing delay, so nothing is
 * applied twice or skipped, and the error shows in `status().lastError` until a batch succeeds.
 */
export function createProjector(deps: ProjectorDeps): Projector {
  const log = deps.logger.child({ component: 'projector' });
  const metrics: ProjectorMetrics | undefined = deps.metrics ? projectorMetrics(deps.metrics) : undefined;
  let keyspace: Keyspace | undefined;
  let publisher = deps.publisher;
  let subscription: Subscription | undefined;
  let running = false;
  let caughtUp = false;
  let markCaughtUp = () => {};
  const caughtUpOnce = new Promise<void>((done) => (markCaughtUp = done));
  let lastError: string | null = null;
  let eventsProjected = 0;
  let lastPosition: GlobalPosition = START;
  let retryMs = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  const waiters = new Set<{ target: GlobalPosition; done: () => void }>();
  /** Until caught up: what has been stored, so batches are projected while the last one is applied. */
  let mirror: CatchUpMirror | undefined;
  /** Batches handed to the handler so far, and whether one is being handled (the idle check's guard). */
  let batchesSeen = 0;
  let handling = false;
  let checkTimer: NodeJS.Timeout | undefined;
  /** Catch-up batches sent but not yet stored. */
  let unstored = 0;
  /** The batch being applied while the next one is projected (catch-up), with its bookkeeping. */
  let inFlight: Promise<void> | undefined;
  const drained = async () => {
    await inFlight?.catch(() => undefined);
  };
  /** Live notices of catch-up batches stored but not pushed yet, and when the last push was decided. */
  const backlog = new LiveBacklog();
  let pushedAt = -Infinity;
  const behindAt = Math.min(BEHIND_BATCH, deps.maxBatchSize ?? BEHIND_BATCH);
  let resubscribing = false;

  const ks = () => {
    if (!keyspace) throw new Error('Projector not started');
    return keyspace;
  };
  const label = () => ({ keyspace: ks().id });

  const release = () => {
    for (const w of waiters) {
      if (comparePositions(lastPosition, w.target) >= 0) {
        waiters.delete(w);
        w.done();
      }
    }
  };

  const publishNotices = async (notices: LiveNotice[]) => {
    if (!publisher || notices.length === 0) return;
    try {
      await publisher.publish(await liveEventsFor(notices, ks()));
    } catch (error) {
      // The batch is stored; a missed broadcast is repaired by the next one or a reload.
      log.warn({ err: error }, 'live events not published');
    }
  };

  /** Pushes what catch-up batches held back; the keyspace must be quiet (nothing in flight). */
  const pushBacklog = async () => {
    if (!backlog.empty) await publishNotices(backlog.take());
    release();
  };

  /**
   * After a batch is stored: position, metrics, progress, then its live events: pushed now
   * ('batch', live), held back ('hold', catching up) or pushed with what was held back ('flush').
   */
  const stored = async (parsed: PositionedEvent[], applied: number, live: LiveNotice[], started: number, push: 'batch' | 'hold' | 'flush') => {
    // Only forwards: a batch handed over again changes nothing, the checkpoint included.
    const end = parsed[parsed.length - 1]!.position;
    if (comparePositions(end, lastPosition) > 0) lastPosition = end;
    eventsProjected += applied;
    lastError = null;
    retryMs = RETRY_MIN_MS;
    metrics?.eventsProjected.inc(label(), applied);
    metrics?.batchSeconds.observe(label(), (performance.now() - started) / 1000);
    deps.onBatch?.(applied, positionToString(lastPosition));
    if (publisher) {
      if (push === 'batch' && backlog.empty) await publishNotices(live);
      else {
        backlog.add(live);
        if (push !== 'hold') await publishNotices(backlog.take());
      }
    }
    // Settled means stored and broadcast, so whoever waits on it sees the live events too.
    if (backlog.empty) release();
  };

  /** One delivered batch: catch-up (pipelined, from the mirror) or live (from a snapshot). */
  const handle = async (recorded: RecordedEvent[]) => {
    const started = performance.now();
    // Events before an unreadable one are stored first; the bad one stops the subscription
    // (and is retried from the checkpoint) rather than being skipped.
    const { parsed, error: unreadable } = parseUntilInvalid(recorded);
    if (parsed.length === 0 && unreadable) throw unreadable;
    const catchingUp = mirror;
    if (catchingUp) {
      // Catch-up: project from the mirror and leave the batch applying while the next one is
      // read and projected. Each apply still checks the checkpoint the previous one stored.
      const previous = inFlight;
      // Live events read the keyspace after their batch (figures, the chat after a clear), so
      // the batch that pushes is not overlapped by the next one; the others hold theirs back.
      const push = publisher && performance.now() - pushedAt >= CATCH_UP_PUSH_MS ? 'flush' : 'hold';
      if (push === 'flush') pushedAt = performance.now();
      let projected;
      try {
        projected = await catchingUp.project(parsed);
      } catch (error) {
        mirror = undefined;
        throw error;
      }
      const applying = projected.batch ? ks().apply(projected.batch) : Promise.resolve('applied' as const);
      const { applied, live } = projected;
      const current = (async () => {
        await previous;
        if ((await applying) === 'stale') throw new ConcurrentProjectionError(ks().id);
        await stored(parsed, applied, live, started, push);
      })();
      inFlight = current;
      unstored++;
      current.then(
        () => unstored--,
        () => unstored--, // reported by the next batch, drained() or caught-up
      );
      try {
        // One batch in flight at most: the previous one must be stored before this returns.
        await previous;
        if (unreadable || push === 'flush') await current;
      } catch (error) {
        mirror = undefined;
        throw error;
      }
      if (unreadable) throw unreadable;
      return;
    }
    // Live: the keyspace must still be where this subscription left it (Redis may have restarted empty).
    await inFlight;
    const projected = await projectInto(ks(), parsed, comparePositions(lastPosition, START) === 0 ? null : positionToString(lastPosition));
    await stored(parsed, projected.applied, projected.live, started, 'batch');
    if (unreadable) throw unreadable;
    if (recorded.length >= behindAt) void catchUpAgain();
  };

  /** Fallen behind while live: a new subscription from the stored checkpoint catches up. */
  const catchUpAgain = async () => {
    if (resubscribing || !running || !subscription) return;
    resubscribing = true;
    try {
      const current = subscription;
      subscription = undefined;
      log.info({ keyspace: ks().id, position: positionToString(lastPosition) }, 'projector behind; catching up again');
      // Resolves once the batch handler that called this has returned.
      await current.stop();
      if (running && !subscription) await subscribe().catch(onSubscribeError);
    } finally {
      resubscribing = false;
    }
  };

  const subscribe = async () => {
    // A batch still being applied (the subscription failed meanwhile) lands before the checkpoint is read.
    await drained();
    inFlight = undefined;
    await deps.onSubscribe?.(ks());
    const checkpoint = await ks().checkpoint();
    lastPosition = checkpoint ? positionFromString(checkpoint) : START;
    mirror = new CatchUpMirror(ks(), checkpoint);
    release();
    log.info({ keyspace: ks().id, from: checkpoint ?? 'start' }, 'projector subscribing');
    const me: Subscription = deps.eventStore.subscribeToAll({
      after: lastPosition,
      ...(deps.maxBatchSize ? { maxBatchSize: deps.maxBatchSize } : {}),
      onEvents: async (recorded) => {
        batchesSeen++;
        handling = true;
        try {
          await handle(recorded);
        } finally {
          handling = false;
        }
      },
      onCaughtUp: () => {
        // The last catch-up batch may still be applying: caught up once it is stored and what
        // catch-up held back is pushed. The next live batch waits for both (it awaits inFlight).
        mirror = undefined;
        const last = inFlight;
        const current = subscription;
        const pushed = (async () => {
          await last;
          await pushBacklog();
        })();
        pushed.catch(() => undefined); // handled below and by whoever awaits inFlight next
        inFlight = pushed;
        void (async () => {
          try {
            await pushed;
          } catch (error) {
            // Nothing else would notice: the subscription now waits for new events.
            if (subscription !== current || !current) return;
            subscription = undefined;
            await current.stop();
            failed(error);
            return;
          }
          caughtUp = true;
          markCaughtUp();
          log.info({ keyspace: ks().id, position: positionToString(lastPosition), eventsProjected }, 'projector caught up');
        })();
      },
      onError: (error) => {
        if (subscription !== me) return; // replaced meanwhile (the idle check restarted it)
        subscription = undefined;
        failed(error);
      },
    });
    subscription = me;
  };

  /**
   * Between batches, the keyspace must still hold the checkpoint this projector stored. Redis
   * restarted without persistence forgets it, and with no new event nothing else would notice:
   * readers would see empty read models until the next one. Then resubscribe, which re-projects
   * from the stored checkpoint (from 0 when gone) and, in the runtime, points readers back here.
   */
  let checking = false;
  const checkStored = async () => {
    if (checking || !running || !subscription || mirror || handling || unstored > 0) return;
    checking = true;
    try {
      const seen = batchesSeen;
      const expected = comparePositions(lastPosition, START) === 0 ? null : positionToString(lastPosition);
      let found: string | null;
      try {
        found = await ks().checkpoint();
      } catch {
        return; // unreachable for now: the next check asks again
      }
      // A batch handled meanwhile moved the checkpoint on: nothing to compare.
      if (found === expected || !running || !subscription || mirror || handling || unstored > 0 || batchesSeen !== seen) return;
      log.warn({ keyspace: ks().id, stored: found ?? 'none', expected }, 'read models lost under the projector (Redis restarted empty?); re-projecting from their checkpoint');
      metrics?.errors.inc(label());
      const current = subscription;
      subscription = undefined;
      await current.stop();
      if (running && !subscription) await subscribe().catch(onSubscribeError);
    } finally {
      checking = false;
    }
  };

  /** The subscription stopped on an error: restart it from the stored checkpoint, after a growing delay. */
  const failed = (error: unknown) => {
    mirror = undefined;
    lastError = error instanceof Error ? error.message : String(error);
    metrics?.errors.inc(label());
    log.error({ err: error, retryInMs: retryMs }, 'projection failed; restarting from the checkpoint');
    if (!running) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (running) subscribe().catch(onSubscribeError);
    }, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  const onSubscribeError = (error: unknown) => {
    lastError = error instanceof Error ? error.message : String(error);
    log.error({ err: error, retryInMs: retryMs }, 'projector could not read its checkpoint; retrying');
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (running) subscribe().catch(onSubscribeError);
    }, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  const self: Projector = {
    get keyspace() {
      return ks();
    },
    async start() {
      if (running) return;
      keyspace ??= deps.keyspaceId ? deps.readModels.keyspace(deps.keyspaceId) : await deps.readModels.active();
      running = true;
      metrics?.running.add(self);
      const every = deps.checkIntervalMs ?? CHECK_INTERVAL_MS;
      if (every > 0) {
        checkTimer = setInterval(() => void checkStored(), every);
        checkTimer.unref();
      }
      await subscribe().catch(onSubscribeError);
    },
    async stop() {
      running = false;
      clearInterval(checkTimer);
      metrics?.running.delete(self);
      clearTimeout(retryTimer);
      await subscription?.stop();
      subscription = undefined;
      await drained();
      mirror = undefined;
    },
    setPublisher(next) {
      publisher = next;
    },
    async settled() {
      const target = await deps.eventStore.headPosition();
      if (comparePositions(lastPosition, target) >= 0) return;
      await new Promise<void>((done) => waiters.add({ target, done }));
    },
    caughtUp: () => caughtUpOnce,
    async status() {
      const k = ks();
      const lag = await lagOf(k, deps.eventStore);
      return { keyspace: k.id, running, caughtUp, ...lag, lagEventsCapped: lag.lagEvents >= LAG_SCAN_LIMIT, eventsProjected, lastError };
    },
  };
  return self;
}
