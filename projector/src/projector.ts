import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  START,
  comparePositions,
  positionFromString,
  positionToString,
  type EventStore,
  type GlobalPosition,
  type Subscription,
} from '@pass/events';
import { liveEventsFor, type LivePublisher } from './live/publisher';
import { projectorMetrics, type ProjectorMetrics } from './metrics';
import { LAG_SCAN_LIMIT, lagOf } from './rebuild/status';
import { parseUntilInvalid, projectInto } from './projections/apply';
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

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;

/**
 * Catch-up subscription from the stored checkpoint into one keyspace. Each delivered batch is
 * projected and stored with its checkpoint in one atomic write, then announced to browsers. A
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

  const subscribe = async () => {
    await deps.onSubscribe?.(ks());
    const stored = await ks().checkpoint();
    lastPosition = stored ? positionFromString(stored) : START;
    release();
    log.info({ keyspace: ks().id, from: stored ?? 'start' }, 'projector subscribing');
    subscription = deps.eventStore.subscribeToAll({
      after: lastPosition,
      ...(deps.maxBatchSize ? { maxBatchSize: deps.maxBatchSize } : {}),
      onEvents: async (recorded) => {
        const started = performance.now();
        // Events before an unreadable one are stored first; the bad one stops the subscription
        // (and is retried from the checkpoint) rather than being skipped.
        const { parsed, error: unreadable } = parseUntilInvalid(recorded);
        if (parsed.length === 0 && unreadable) throw unreadable;
        // The keyspace must still be where this subscription left it (Redis may have restarted empty).
        const projected = await projectInto(ks(), parsed, comparePositions(lastPosition, START) === 0 ? null : positionToString(lastPosition));
        // Only forwards: a batch handed over again changes nothing, the checkpoint included.
        const end = parsed[parsed.length - 1]!.position;
        if (comparePositions(end, lastPosition) > 0) lastPosition = end;
        eventsProjected += projected.applied;
        lastError = null;
        retryMs = RETRY_MIN_MS;
        metrics?.eventsProjected.inc(label(), projected.applied);
        metrics?.batchSeconds.observe(label(), (performance.now() - started) / 1000);
        deps.onBatch?.(projected.applied, positionToString(lastPosition));
        if (publisher && projected.live.length > 0) {
          try {
            await publisher.publish(await liveEventsFor(projected.live, ks()));
          } catch (error) {
            // The batch is stored; a missed broadcast is repaired by the next one or a reload.
            log.warn({ err: error }, 'live events not published');
          }
        }
        // Settled means stored and broadcast, so whoever waits on it sees the live events too.
        release();
        if (unreadable) throw unreadable;
      },
      onCaughtUp: () => {
        caughtUp = true;
        markCaughtUp();
        log.info({ keyspace: ks().id, position: positionToString(lastPosition), eventsProjected }, 'projector caught up');
      },
      onError: (error) => {
        lastError = error instanceof Error ? error.message : String(error);
        metrics?.errors.inc(label());
        log.error({ err: error, retryInMs: retryMs }, 'projection failed; restarting from the checkpoint');
        subscription = undefined;
        if (!running) return;
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          if (running) subscribe().catch(onSubscribeError);
        }, retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      },
    });
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
      await subscribe().catch(onSubscribeError);
    },
    async stop() {
      running = false;
      metrics?.running.delete(self);
      clearTimeout(retryTimer);
      await subscription?.stop();
      subscription = undefined;
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
