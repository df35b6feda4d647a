import type { RecordedEvent } from '@pass/events';
import type { Keyspace } from '../read-models/port';

export const CHECK_INTERVAL_MS = 2_000;

export interface CheckpointWatchDeps {
  /** 0: never check (the projector then notices on its next batch). */
  everyMs: number;
  keyspace: () => Keyspace;
  /** Running and subscribed, with nothing being caught up or stored: the checkpoint should not move. */
  idle: () => boolean;
  /** The checkpoint this projector stored (null: none). */
  expected: () => string | null;
  /** The keyspace holds another checkpoint than the one stored. */
  lost: (found: string | null, expected: string | null) => Promise<void>;
}

/**
 * Between batches, the keyspace must still hold the checkpoint this projector stored. Redis
 * restarted without persistence forgets it, and with no new event nothing else would notice:
 * readers would see empty read models until the next one. One GET per interval, only while idle.
 */
export class CheckpointWatch {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  /** Batches handed to the handler so far, and whether one is being handled. */
  private batchesSeen = 0;
  private handling = false;

  constructor(private readonly deps: CheckpointWatchDeps) {}

  start(): void {
    if (this.deps.everyMs <= 0) return;
    this.timer = setInterval(() => void this.check(), this.deps.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The subscription's batch handler, so that no check runs while a batch is handled. */
  track(handle: (recorded: RecordedEvent[]) => Promise<void>): (recorded: RecordedEvent[]) => Promise<void> {
    return async (recorded) => {
      this.batchesSeen++;
      this.handling = true;
      try {
        await handle(recorded);
      } finally {
        this.handling = false;
      }
    };
  }

  private async check(): Promise<void> {
    if (this.checking || this.handling || !this.deps.idle()) return;
    this.checking = true;
    try {
      const seen = this.batchesSeen;
      const expected = this.deps.expected();
      let found: string | null;
      try {
        found = await this.deps.keyspace().checkpoint();
      } catch {
        return; // unreachable for now: the next check asks again
      }
      // A batch handled meanwhile moved the checkpoint on: nothing to compare.
      if (found === expected || this.handling || !this.deps.idle() || this.batchesSeen !== seen) return;
      await this.deps.lost(found, expected);
    } finally {
      this.checking = false;
    }
  }
}
