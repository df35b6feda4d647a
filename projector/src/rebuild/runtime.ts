import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventStore, ProjectionStatus } from '@pass/events';
import type { LivePublisher } from '../live/publisher';
import { createProjector, type Projector } from '../projector';
import { BUILD_KEYSPACE_PREFIX, newKeyspaceId, type Keyspace, type ReadModelStore } from '../read-models/port';
import type { ProjectionControl } from './control';

export type RebuildState = ProjectionStatus['rebuild'];

export interface ProjectionRuntimeDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  publisher?: LivePublisher;
  logger: Logger;
  metrics?: Registry;
  maxBatchSize?: number;
  /** How often an idle projector checks its keyspace still holds its checkpoint (see ProjectorDeps). */
  checkIntervalMs?: number;
  /** Old keyspaces are deleted this long after the switch, once no reader can still use them. */
  dropDelayMs?: number;
  /** Told about every change of the rebuild state (distributed mode stores it in Redis). */
  onRebuildState?: (state: RebuildState, lastError: string | null) => void;
}

export interface ProjectionRuntime extends ProjectionControl {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The projector that currently feeds readers. */
  live(): Projector;
  /** Runs a rebuild to completion (what a job worker awaits). */
  runRebuild(): Promise<void>;
  rebuildState(): RebuildState;
}

const PAGE = 5_000;

async function countEvents(store: EventStore): Promise<number> {
  // The SQL stores count in one query; paging through every event (the fallback, for other
  // stores) reads and parses the whole store a second time during a rebuild.
  const counting = store as EventStore & { countAll?: () => Promise<number> };
  if (typeof counting.countAll === 'function') return await counting.countAll();
  let total = 0;
  let after;
  for (;;) {
    const page = await store.readAll({ ...(after ? { after } : {}), maxCount: PAGE });
    total += page.length;
    if (page.length < PAGE) return total;
    after = page[page.length - 1]!.position;
  }
}

/**
 * The live projector plus admin-triggered rebuilds. A rebuild fills a fresh keyspace from
 * position 0 while the live one keeps serving; once it has caught up, the old projector stops,
 * the new one takes the last few events, readers are switched to it in one step, and it goes on
 * as the live projector (now also publishing). Readers never see an empty or half-built model.
 */
export function createProjectionRuntime(deps: ProjectionRuntimeDeps): ProjectionRuntime {
  return new Runtime(deps);
}

class Runtime implements ProjectionRuntime {
  private readonly log: Logger;
  private current: Projector | undefined;
  private state: RebuildState = { state: 'idle', processed: 0, total: 0, startedAt: null };
  private rebuildError: string | null = null;
  private running: Promise<void> | undefined;
  private readonly dropTimers = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: ProjectionRuntimeDeps) {
    this.log = deps.logger.child({ component: 'projection-runtime' });
  }

  async start(): Promise<void> {
    const activeId = await this.deps.readModels.activeId();
    // A rebuild that died with its process left a keyspace nobody reads, and maybe a "running"
    // state; clear both (one leading projector per deployment). Dropped after the usual delay:
    // readers switched to this keyspace a moment ago may still read the one before. Keyspaces
    // another projection version builds beside this one are its to keep.
    for (const id of await this.deps.readModels.list()) {
      if (id === activeId || id.startsWith(BUILD_KEYSPACE_PREFIX)) continue;
      this.log.warn({ keyspace: id }, 'dropping a keyspace left by an unfinished rebuild or an earlier version');
      this.dropLater(id);
    }
    this.deps.onRebuildState?.(this.state, this.rebuildError);
    this.current ??= this.projector(activeId, this.deps.publisher);
    await this.current.start();
    // Read models older code projected (an older search index, or no progress read model from the
    // start) are re-projected; readers keep them until the switch.
    if (await this.deps.readModels.outdated(activeId)) {
      this.log.warn({ keyspace: activeId }, 'read models projected by older code (search index or progress days); rebuilding them');
      void this.runRebuild();
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.dropTimers) clearTimeout(timer);
    this.dropTimers.clear();
    await this.running?.catch(() => undefined);
    await this.current?.stop();
  }

  live(): Projector {
    if (!this.current) throw new Error('Projection runtime not started');
    return this.current;
  }

  rebuildState(): RebuildState {
    return this.state;
  }

  runRebuild(): Promise<void> {
    this.running ??= this.rebuildOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async rebuild(): Promise<ProjectionStatus> {
    void this.runRebuild();
    return this.status();
  }

  async status(): Promise<ProjectionStatus> {
    const liveStatus = await this.live().status();
    return {
      position: liveStatus.position,
      headPosition: liveStatus.headPosition,
      lagEvents: liveStatus.lagEvents,
      lagSeconds: liveStatus.lagSeconds,
      lastError: liveStatus.lastError ?? this.rebuildError,
      rebuild: this.state,
    };
  }

  private setState(next: Partial<RebuildState>): void {
    this.state = { ...this.state, ...next };
    this.deps.onRebuildState?.(this.state, this.rebuildError);
  }

  private projector(keyspaceId: string, publisher: LivePublisher | undefined, onBatch?: (applied: number) => void): Projector {
    const { deps } = this;
    const created: Projector = createProjector({
      eventStore: deps.eventStore,
      readModels: deps.readModels,
      publisher,
      logger: deps.logger,
      keyspaceId,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(deps.maxBatchSize ? { maxBatchSize: deps.maxBatchSize } : {}),
      ...(deps.checkIntervalMs !== undefined ? { checkIntervalMs: deps.checkIntervalMs } : {}),
      ...(onBatch ? { onBatch } : {}),
      onSubscribe: (keyspace) => this.pointReadersAt(created, keyspace),
    });
    return created;
  }

  /**
   * The live projector's keyspace is the one readers use. A Redis that restarted empty has
   * forgotten which (readers then claim the first keyspace): point them back here, where the
   * projector re-projects from 0. Set on every (re)subscribe, not only when it differs:
   * activeId() may answer from its cache, from before the restart.
   */
  private async pointReadersAt(projector: Projector, keyspace: Keyspace): Promise<void> {
    if (this.current !== projector) return;
    if ((await this.deps.readModels.activeId()) !== keyspace.id) {
      this.log.warn({ keyspace: keyspace.id }, 'readers were not on the live keyspace (read models lost?); switching them back');
    }
    if (this.current === projector) await this.deps.readModels.activate(keyspace.id);
  }

  private async rebuildOnce(): Promise<void> {
    const id = newKeyspaceId();
    this.rebuildError = null;
    this.setState({ state: 'running', processed: 0, total: 0, startedAt: new Date().toISOString() });
    this.log.info({ keyspace: id }, 'rebuild started');
    const fresh = this.projector(id, undefined, (applied) => {
      const processed = this.state.processed + applied;
      this.setState({ processed, total: Math.max(this.state.total, processed) });
    });
    try {
      this.countForProgress();
      await fresh.start();
      // Caught up means its deferred search index is built too: settled alone (every event
      // stored) would hand readers a keyspace whose searches still miss rows.
      await fresh.caughtUp();
      await fresh.settled();
      await this.switchTo(fresh, id);
    } catch (error) {
      this.rebuildError = error instanceof Error ? error.message : String(error);
      this.log.error({ err: error, keyspace: id }, 'rebuild failed; readers stay on the current read models');
      await fresh.stop().catch(() => undefined);
      // If the old projector was already stopped for the switch, it resumes where it was.
      if (this.current && !(await this.current.status().then((status) => status.running))) await this.current.start();
      await this.deps.readModels.drop(id).catch(() => undefined);
      this.setState({ state: 'failed' });
    }
  }

  /** The rebuild's total, counted while it runs. */
  private countForProgress(): void {
    countEvents(this.deps.eventStore)
      .then((total) => {
        if (this.state.state === 'running') this.setState({ total: Math.max(total, this.state.processed) });
      })
      .catch((error: unknown) => this.log.warn({ err: error }, 'could not count events for the rebuild progress'));
  }

  /** Stops the old projector, lets the fresh one take the last events, and points readers at it. */
  private async switchTo(fresh: Projector, id: string): Promise<void> {
    this.setState({ state: 'switching' });
    const old = this.current;
    await old?.stop();
    await fresh.settled();
    await this.deps.readModels.activate(id);
    fresh.setPublisher(this.deps.publisher);
    this.current = fresh;
    this.setState({ state: 'idle', total: this.state.processed });
    this.log.info({ keyspace: id, processed: this.state.processed }, 'rebuild switched readers over');
    if (old) this.dropLater(old.keyspace.id);
  }

  /** Deletes an old keyspace once no reader can still be using it. */
  private dropLater(id: string): void {
    const timer = setTimeout(() => {
      this.dropTimers.delete(timer);
      this.deps.readModels.drop(id).catch((error: unknown) => this.log.warn({ err: error, keyspace: id }, 'old keyspace not dropped'));
    }, this.deps.dropDelayMs ?? 5_000);
    this.dropTimers.add(timer);
  }
}
