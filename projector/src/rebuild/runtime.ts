import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventStore, ProjectionStatus } from '@pass/events';
import type { LivePublisher } from '../live/publisher';
import { createProjector, type Projector } from '../projector';
import { newKeyspaceId, type ReadModelStore } from '../read-models/port';
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
  // The SQL stores count in one query; paging through every event (the fallback) read and
  // parsed the whole store a second time during a rebuild.
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
  const log = deps.logger.child({ component: 'projection-runtime' });
  let live: Projector | undefined;
  let state: RebuildState = { state: 'idle', processed: 0, total: 0, startedAt: null };
  let rebuildError: string | null = null;
  let running: Promise<void> | undefined;
  const dropTimers = new Set<NodeJS.Timeout>();

  const setState = (next: Partial<RebuildState>) => {
    state = { ...state, ...next };
    deps.onRebuildState?.(state, rebuildError);
  };
  const projector = (keyspaceId: string, publisher: LivePublisher | undefined, onBatch?: (n: number) => void): Projector => {
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
      // The live projector's keyspace is the one readers use. A Redis that restarted empty has
      // forgotten which (readers then claim the first keyspace): point them back here, where
      // the projector re-projects from 0. Set on every (re)subscribe, not only when it differs:
      // activeId() may answer from its cache, from before the restart.
      onSubscribe: async (keyspace) => {
        if (live !== created) return;
        if ((await deps.readModels.activeId()) !== keyspace.id) {
          log.warn({ keyspace: keyspace.id }, 'readers were not on the live keyspace (read models lost?); switching them back');
        }
        if (live === created) await deps.readModels.activate(keyspace.id);
      },
    });
    return created;
  };

  const rebuild = async () => {
    const id = newKeyspaceId();
    rebuildError = null;
    setState({ state: 'running', processed: 0, total: 0, startedAt: new Date().toISOString() });
    log.info({ keyspace: id }, 'rebuild started');
    const fresh = projector(id, undefined, (n) => {
      const processed = state.processed + n;
      setState({ processed, total: Math.max(state.total, processed) });
    });
    try {
      countEvents(deps.eventStore)
        .then((total) => {
          if (state.state === 'running') setState({ total: Math.max(total, state.processed) });
        })
        .catch((error: unknown) => log.warn({ err: error }, 'could not count events for the rebuild progress'));
      await fresh.start();
      await fresh.settled();
      setState({ state: 'switching' });
      const old = live;
      await old?.stop();
      await fresh.settled();
      await deps.readModels.activate(id);
      fresh.setPublisher(deps.publisher);
      live = fresh;
      setState({ state: 'idle', total: state.processed });
      log.info({ keyspace: id, processed: state.processed }, 'rebuild switched readers over');
      if (old) {
        const timer = setTimeout(() => {
          dropTimers.delete(timer);
          deps.readModels.drop(old.keyspace.id).catch((error: unknown) => log.warn({ err: error, keyspace: old.keyspace.id }, 'old keyspace not dropped'));
        }, deps.dropDelayMs ?? 5_000);
        dropTimers.add(timer);
      }
    } catch (error) {
      rebuildError = error instanceof Error ? error.message : String(error);
      log.error({ err: error, keyspace: id }, 'rebuild failed; readers stay on the current read models');
      await fresh.stop().catch(() => undefined);
      // If the old projector was already stopped for the switch, it resumes where it was.
      if (live && !(await live.status().then((s) => s.running))) await live.start();
      await deps.readModels.drop(id).catch(() => undefined);
      setState({ state: 'failed' });
    }
  };

  const runtime: ProjectionRuntime = {
    async start() {
      const activeId = await deps.readModels.activeId();
      // A rebuild that died with its process left a keyspace nobody reads, and maybe a
      // "running" state; clear both (one projector process per deployment).
      for (const id of await deps.readModels.list()) {
        if (id === activeId) continue;
        log.warn({ keyspace: id }, 'dropping a keyspace left by an unfinished rebuild');
        await deps.readModels.drop(id);
      }
      deps.onRebuildState?.(state, rebuildError);
      live ??= projector(activeId, deps.publisher);
      await live.start();
    },
    async stop() {
      for (const t of dropTimers) clearTimeout(t);
      dropTimers.clear();
      await running?.catch(() => undefined);
      await live?.stop();
    },
    live() {
      if (!live) throw new Error('Projection runtime not started');
      return live;
    },
    rebuildState: () => state,
    runRebuild() {
      running ??= rebuild().finally(() => {
        running = undefined;
      });
      return running;
    },
    async rebuild() {
      void runtime.runRebuild();
      return runtime.status();
    },
    async status() {
      const s = await runtime.live().status();
      return {
        position: s.position,
        headPosition: s.headPosition,
        lagEvents: s.lagEvents,
        lagSeconds: s.lagSeconds,
        lastError: s.lastError ?? rebuildError,
        rebuild: state,
      };
    },
  };
  return runtime;
}
