import type { DomainEvent, GlobalPostView, ProgressDay } from '@pass/events';
import { copyRow, type BatchSnapshot, type MainRecord, type ReadModelWrite, type UserRow } from '../read-models/types';
import type { LiveNotice } from './types';

const NONE_SEALED: ReadonlySet<DomainEvent> = new Set();

export type ChatWrite = Extract<ReadModelWrite, { op: 'chatPush' | 'chatClear' | 'chatDropUser' }>;

/**
 * Every read model as a batch changes it, event by event, from the stored values it read
 * (`stored`, left as read: the base the writes are the difference from).
 */
export class WorkingCopy {
  /** The figures record; the chat, member and registration counts live in it too. */
  readonly main: MainRecord;
  posts: GlobalPostView[];
  /** User rows the batch touched, each copied from the stored one on first touch. */
  readonly rows = new Map<string, UserRow>();
  /** Chat lines appended and clears, in order. */
  readonly chat: ChatWrite[] = [];
  /** What browsers should hear once the batch is stored. */
  readonly live: LiveNotice[] = [];
  /** Members erased in this batch: their rows leave every read model instead of being written. */
  readonly erased = new Set<string>();
  /**
   * The progress read model's days the batch changed, oldest first: the stored last day (copied
   * when first touched), then any days after it (projections/progress.ts).
   */
  readonly progressDays: ProgressDay[] = [];
  /** Members whose erasure the progress read model has counted in this batch. */
  readonly progressErased = new Set<string>();
  /** Members per country changed (the figures broadcast carries them). */
  countriesChanged = false;
  /**
   * Events of the batch whose personal fields were left sealed (PositionedEvent.sealed): only
   * chat lines the batch takes out of the history, which are counted but not stored.
   */
  readonly sealed: ReadonlySet<DomainEvent>;

  /**
   * @param indexed whether the batch keeps the search index (false while it is deferred: the
   * index is then built once the catch-up is done, see IndexState).
   */
  constructor(
    readonly stored: BatchSnapshot,
    readonly indexed = true,
    sealed: ReadonlySet<DomainEvent> = NONE_SEALED,
  ) {
    this.main = { ...stored.main };
    this.posts = stored.posts;
    this.sealed = sealed;
  }

  /** The user's row to change in place; undefined when they have none. */
  row(userId: string): UserRow | undefined {
    let row = this.rows.get(userId);
    if (row === undefined) {
      const stored = this.stored.users.get(userId);
      if (stored === undefined) return undefined;
      // Copied field by field so every row has one shape (see copyRow).
      this.rows.set(userId, (row = copyRow(stored)));
    }
    return row;
  }
}
