import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventStore } from '@pass/events';
import type { EncryptingEventStore } from '@pass/events/personal-data';
import { openPersonalDataEventStore } from '@pass/events/store';
import type { CommandApi } from '@pass/command-api';
import {
  broadcastPublisher,
  createMemoryReadModels,
  createReadModelSnapshots,
  localReplays,
  memoryReplayStates,
  type Broadcaster,
  type MemoryReadModelStore,
  type ProjectionRuntime,
  type ReadModelSnapshots,
  type RebuildState,
} from '@pass/projector';
import { attachSocketServer, createQueryReads, readSideChecks, socketSessionNotices, type RoomBroadcaster } from '@pass/query-api';
import { backupRouter, registerDataDirMetrics, siteSecret } from '../backup';
import type { Settings } from '../config/settings';
import { socketSecurity } from '../http/security-headers';
import { composeCommandApi } from '../wiring/command-side';
import { createShellServer, listen, stopServing } from '../wiring/http';
import { Resources } from '../wiring/lifecycle';
import { createRegistry, opsRouter } from '../wiring/ops';
import { catchUp, composeProjection } from '../wiring/read-side';

export interface RunningStandalone {
  url: string;
  server: Server;
  eventStore: EventStore;
  close(): Promise<void>;
}

/** How often the in-memory read models are written to their snapshot while running (and at shutdown). */
const SNAPSHOT_EVERY_MS = 10 * 60_000;

/**
 * The standalone composition root: one process holding command-api, projector, query-api and
 * the built web app on one origin, on the embedded event store unless EVENT_STORE_URL says
 * otherwise. Read models live in memory: restored from the snapshot in DATA_DIR when it is
 * valid, else rebuilt from the store, then caught up; the returned promise resolves once they
 * have caught up (until then /readyz answers 503).
 */
export async function startStandalone(settings: Settings, logger: Logger): Promise<RunningStandalone> {
  const eventStore = await openEventStore(settings, logger);
  const resources = new Resources();
  resources.add(() => eventStore.close());
  try {
    const registry = createRegistry('standalone');
    registerDataDirMetrics(registry, settings.dataDir);
    // Bound once the projection exists (below); an erasure cannot be asked before the server listens.
    const erasure = { after: async (_userId: string): Promise<void> => {} };
    // Ended sessions go to the member's sockets once they are attached (serve); none is open before.
    const rooms: { io?: RoomBroadcaster } = {};
    const sessionNotices = socketSessionNotices(() => rooms.io, (error) => logger.warn({ err: error }, 'sign-out notice not sent'));
    const { commandApi } = await composeCommandApi(settings, eventStore, logger, resources, registry, 'in-process', { afterErasure: (userId) => erasure.after(userId), sessionNotices });
    const readSide = await buildReadSide(settings, eventStore, logger, registry);
    erasure.after = snapshotAfterErasure(readSide, logger);
    const { url, server, io } = await serve(settings, eventStore, logger, registry, commandApi, readSide, resources);
    rooms.io = io;
    await catchUp(readSide.projection, logger);
    savePeriodically(readSide.snapshots, resources);
    return { url, server, eventStore, close: resources.close };
  } catch (error) {
    await resources.close().catch((closeError: unknown) => logger.warn({ err: closeError }, 'cleanup after a failed start failed'));
    throw error;
  }
}

async function openEventStore(settings: Settings, logger: Logger): Promise<EncryptingEventStore> {
  mkdirSync(settings.dataDir, { recursive: true });
  // Members' personal fields are encrypted at rest, their keys in DATA_DIR/member-keys (docs/architecture.md, "Personal data").
  const eventStore = await openPersonalDataEventStore(settings.eventStoreUrl, { logger, keysDir: join(settings.dataDir, 'member-keys') });
  logger.info({ eventStore: eventStore.kind }, 'event store open');
  return eventStore;
}

interface ReadSide {
  readModels: MemoryReadModelStore;
  snapshotFile: string;
  snapshots: ReadModelSnapshots;
  projection: ProjectionRuntime;
  /** Where the projector's live events go: the Socket.IO server, once attached. */
  publishTo(io: Broadcaster): void;
}

/** The in-memory read models, restored from their snapshot when it is valid, and the projection that follows the store into them. */
async function buildReadSide(settings: Settings, eventStore: EventStore, logger: Logger, registry: Registry): Promise<ReadSide> {
  const readModels = createMemoryReadModels();
  const snapshotFile = join(settings.dataDir, 'read-models.snapshot');
  // Sealed with the site's secret (SESSION_SECRET, else the one kept in DATA_DIR): an edited or foreign file is not loaded.
  const secret = await siteSecret(settings.sessionSecret, settings.dataDir);
  const snapshots = createReadModelSnapshots({ file: snapshotFile, readModels, eventStore, logger, secret });
  await snapshots.load();
  // The projector publishes into the Socket.IO server attached later (serve); it only publishes
  // once started (after the attach), so the late reference is safe.
  let sockets: Broadcaster | undefined;
  const live: Broadcaster = { emit: (event, ...args) => sockets!.emit(event, ...args) };
  const projection = composeProjection({ eventStore, readModels, publisher: broadcastPublisher(live), logger, registry, onRebuildState: snapshotAfterRebuild(snapshots) });
  return { readModels, snapshotFile, snapshots, projection, publishTo: (io) => (sockets = io) };
}

/**
 * Once an admin rebuild has switched readers over, its read models replace the snapshot (even
 * at the same checkpoint), so no restart brings back what the rebuild set right.
 */
function snapshotAfterRebuild(snapshots: ReadModelSnapshots): (state: RebuildState) => void {
  let switching = false;
  return (state) => {
    if (state.state === 'switching') switching = true;
    else if (switching) {
      switching = false;
      if (state.state === 'idle') void snapshots.replace('rebuild');
    }
  };
}

/**
 * The snapshot on disk holds the erased member in clear: gone before the erasure is answered,
 * then written anew once the read models have dropped them (so the next start stays fast).
 */
function snapshotAfterErasure({ snapshotFile, snapshots, projection }: ReadSide, logger: Logger): (userId: string) => Promise<void> {
  return async () => {
    await rm(snapshotFile, { force: true });
    try {
      await projection.live().settled();
      await snapshots.save('erasure');
    } catch (error) {
      logger.warn({ err: error }, 'read-model snapshot not rewritten after an erasure; the next periodic save writes it');
    }
  };
}

/** One server for everything: ops, backup, reads, commands, uploads, the web app and Socket.IO. */
async function serve(
  settings: Settings,
  eventStore: EncryptingEventStore,
  logger: Logger,
  registry: Registry,
  commandApi: CommandApi,
  readSide: ReadSide,
  resources: Resources,
): Promise<{ url: string; server: Server; io: RoomBroadcaster }> {
  const { readModels, projection, snapshots } = readSide;
  // The admin's replays run here, where the rebuild runs, each into read models in memory of its own.
  const replays = localReplays({ eventStore, states: memoryReplayStates(), keyspaces: createMemoryReadModels(), logger, live: () => readModels.active() });
  resources.add(() => replays.close());
  const reads = createQueryReads({ readModels, sessions: commandApi.sessions, gateway: commandApi.gateway, eventStore, logger, metrics: registry, projections: projection, replays });
  const routers = [
    opsRouter({
      service: 'standalone',
      mode: 'standalone',
      eventStore,
      registry,
      logger,
      checks: readSideChecks({ readModels, eventStore, projector: projection, maxLag: settings.readyMaxLag }),
    }),
    // npm run backup's consistent copy of the events (PGlite is open in this process only), as
    // stored: personal fields stay encrypted in the archive, the keys go with DATA_DIR's files.
    backupRouter({ eventStore: eventStore.inner, secret: () => siteSecret(settings.sessionSecret, settings.dataDir), dataDir: settings.dataDir, uploadsDir: settings.uploadsDir, logger }),
    reads.router,
    // Also serves GET /uploads/* (command-api owns the uploads folder).
    commandApi.router,
  ];
  // Socket.IO takes over the server's request listener when it attaches: it answers /socket.io/
  // itself (long-polling included) and passes everything else to this one. The hot POST routes
  // and public GET reads skip Express as in the distributed command-api and query-api (same
  // shell steps, same answers).
  const server = createShellServer(settings, logger, { routers, fastLanes: [commandApi.fastLane, reads.fastLane] });
  const sockets = attachSocketServer(server, {
    readModels,
    sessions: commandApi.sessions,
    gateway: commandApi.gateway,
    logger,
    metrics: registry,
    ...socketSecurity(settings),
    limits: { socketsPerClient: settings.socketsPerClient },
  });
  readSide.publishTo(sockets.io as Broadcaster);
  const url = await listen(server, settings.host, settings.port);
  resources.add(async () => {
    // The snapshot first, so that no client (one that never reads, say) can keep the stop from
    // writing it; events appended after it are replayed from its checkpoint at the next start.
    await snapshots.save('shutdown');
    await stopServing(server, sockets);
    await projection.stop();
  });
  return { url, server, io: sockets.io as unknown as RoomBroadcaster };
}

/** The snapshot rewritten every SNAPSHOT_EVERY_MS while running, stopped at shutdown. */
function savePeriodically(snapshots: ReadModelSnapshots, resources: Resources): void {
  const periodic = setInterval(() => void snapshots.save('periodic'), SNAPSHOT_EVERY_MS);
  periodic.unref();
  resources.add(async () => clearInterval(periodic));
}
