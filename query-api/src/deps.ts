import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CommandGateway, EventStore, SessionVerifier } from '@pass/events';
import type { CheckpointOf, ProjectionControl, ReadModelStore } from '@pass/projector';

export interface QueryApiDeps {
  readModels: ReadModelStore;
  /** How shared bodies learn the read models moved on; by default they read the checkpoint on every request. */
  checkpointOf?: CheckpointOf;
  sessions: SessionVerifier;
  gateway: CommandGateway;
  /** Admin audit reads a member's stream straight from the store. */
  eventStore: EventStore;
  logger: Logger;
  /** Query latency and socket series are registered here when given. */
  metrics?: Registry;
  /** Status and rebuild of the projections; without it the admin view reports what it can. */
  projections?: ProjectionControl;
}
