import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CommandGateway, EventStore, FailedImageJobs, SessionVerifier } from '@pass/events';
import type { CheckpointOf, ProjectionControl, ReadModelStore, ReplayControl } from '@pass/projector';

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
  /** The admin's replays (the site as of a moment); without it their routes answer 503. */
  replays?: ReplayControl;
  /** The image jobs' dead letters (distributed: the BullMQ queue); without it images are processed in-process. */
  imageJobs?: ImageJobDeadLetters;
}

export interface ImageJobDeadLetters {
  /** The newest `limit` jobs that failed every attempt, and how many there are. */
  list(limit: number): Promise<FailedImageJobs>;
}
