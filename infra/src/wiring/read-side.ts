import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventStore } from '@pass/events';
import { createProjectionRuntime, type LivePublisher, type ProjectionRuntime, type ProjectionRuntimeDeps, type ReadModelStore } from '@pass/projector';

/** The live projector plus rebuilds, publishing each stored batch's live events. */
export function composeProjection(deps: {
  eventStore: EventStore;
  readModels: ReadModelStore;
  publisher: LivePublisher;
  logger: Logger;
  registry: Registry;
  onRebuildState?: ProjectionRuntimeDeps['onRebuildState'];
}): ProjectionRuntime {
  return createProjectionRuntime({
    eventStore: deps.eventStore,
    readModels: deps.readModels,
    publisher: deps.publisher,
    logger: deps.logger,
    metrics: deps.registry,
    ...(deps.onRebuildState ? { onRebuildState: deps.onRebuildState } : {}),
  });
}

/**
 * Starts the projection and resolves once it has caught up with what the store held at start,
 * so a process never reports ready on half-built read models. Progress is logged meanwhile.
 */
export async function catchUp(runtime: ProjectionRuntime, logger: Logger): Promise<void> {
  const started = Date.now();
  await runtime.start();
  const progress = setInterval(() => {
    runtime
      .status()
      .then((status) => logger.info({ position: status.position, head: status.headPosition, lagEvents: status.lagEvents }, 'projector catching up'))
      .catch(() => undefined);
  }, 5_000);
  try {
    await runtime.live().caughtUp();
  } finally {
    clearInterval(progress);
  }
  logger.info({ ms: Date.now() - started }, 'read models caught up');
}
