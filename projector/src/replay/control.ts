import type { ReplayRequest, ReplayStatus } from '@pass/events';
import type { Keyspace } from '../read-models/port';

/** What the admin's replay routes need: start one, follow it, read its read models, delete it. */
export interface ReplayControl {
  /** Starts a replay to the moment: its id, or why not (400: the moment; 429: REPLAYS_KEPT reached). */
  start(request: ReplayRequest): Promise<{ id: string } | { status: 400 | 429; error: string }>;
  /** null: no such replay (never asked for, deleted, or expired). */
  status(id: string): Promise<ReplayStatus | null>;
  /**
   * A ready replay's read models, members erased since it was last read taken out first (so
   * nothing of theirs is shown that today's site would not show).
   */
  readable(id: string): Promise<Keyspace>;
  /** Deletes the replay and its read models (stopping it if it runs); false when there was none. */
  remove(id: string): Promise<boolean>;
  close(): Promise<void>;
}
