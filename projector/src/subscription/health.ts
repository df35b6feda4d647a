/**
 * What a projector knows about itself without asking the store: cheap enough for every heartbeat.
 * Below the projector, so the heartbeat that stores it needs nothing of the projector itself.
 */
export interface ProjectorHealth {
  keyspace: string;
  running: boolean;
  caughtUp: boolean;
  position: string;
  eventsProjected: number;
  /** The error the subscription is retrying after; null once a batch is stored again. */
  lastError: string | null;
  /** The last error ever seen (ISO time), kept after recovery. */
  lastFailure: { message: string; at: string } | null;
}
