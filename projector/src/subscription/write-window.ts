import type { LiveNotice, PositionedEvent, ProjectedBatch } from '../projections/types';
import { HistoryLines } from '../projections/chat-history';
import type { ReadModelWrite, WriteBatch } from '../read-models/types';

/** How large a window grows before it is stored: events read, or writes kept. */
export interface WindowSize {
  events: number;
  writes: number;
}

/**
 * Catch-up batches stored as one atomic apply, from the first batch's expected checkpoint to the
 * last one's, so a crash loses nothing a resubscription does not project again. A write that a
 * later one in the window sets again is dropped (a member's row and score, the figures, the
 * posts, a progress day: docs/architecture.md, "A catch-up stores windows"); a country's changes are summed into
 * its first; a chat line goes once later writes take it out of the history (HistoryLines). Other
 * writes are kept in order, and nothing is dropped across a write that removes the same value.
 */
export class WriteWindow {
  private writes: Array<ReadModelWrite | undefined> = [];
  private kept = 0;
  private readonly rowAt = new Map<string, number>();
  private readonly scoreAt = new Map<string, number>();
  private readonly textAt = new Map<string, number>();
  private mainAt = -1;
  private postsAt = -1;
  /** The window's last progress day write: its place and date (days are written oldest first). */
  private progressAt = -1;
  private progressDate = '';
  private readonly countryAt = new Map<string, number>();
  /** The window's chat lines, by their place in `writes`. */
  private chat = new HistoryLines<number>();
  private expectedCheckpoint: string | null | undefined;
  private checkpoint: string | undefined;
  private live: LiveNotice[] = [];
  private applied = 0;
  private events = 0;
  private last: PositionedEvent | undefined;
  private startedAt = 0;

  /**
   * @param maxEvents events after which the window is full
   * @param maxWrites writes kept after which the window is full (bounds one apply's size)
   */
  constructor(
    private readonly maxEvents: number,
    private readonly maxWrites: number,
  ) {}

  get empty(): boolean {
    return this.events === 0;
  }

  get full(): boolean {
    return this.events >= this.maxEvents || this.kept >= this.maxWrites;
  }

  /** Adds a projected batch (of `parsed`, projection begun at `started`). */
  add(projected: ProjectedBatch, parsed: PositionedEvent[], started: number): void {
    if (this.events === 0) this.startedAt = started;
    this.events += parsed.length;
    this.last = parsed[parsed.length - 1] ?? this.last;
    this.applied += projected.applied;
    for (const notice of projected.live) this.live.push(notice);
    const batch = projected.batch;
    if (!batch) return;
    if (this.expectedCheckpoint === undefined) this.expectedCheckpoint = batch.expectedCheckpoint;
    this.checkpoint = batch.checkpoint;
    for (const write of batch.writes) this.push(write);
  }

  /** What the window holds, as one batch to store, and empties it. */
  take(): { projected: ProjectedBatch; last: PositionedEvent[]; started: number } | undefined {
    if (this.events === 0) return undefined;
    const batch: WriteBatch | null =
      this.checkpoint === undefined
        ? null
        : { expectedCheckpoint: this.expectedCheckpoint ?? null, checkpoint: this.checkpoint, writes: this.writes.filter((write): write is ReadModelWrite => write !== undefined) };
    const taken = { projected: { batch, live: this.live, applied: this.applied }, last: this.last ? [this.last] : [], started: this.startedAt };
    this.clear();
    return taken;
  }

  clear(): void {
    this.writes = [];
    this.kept = 0;
    this.rowAt.clear();
    this.scoreAt.clear();
    this.textAt.clear();
    this.mainAt = this.postsAt = this.progressAt = -1;
    this.progressDate = '';
    this.countryAt.clear();
    this.chat = new HistoryLines<number>();
    this.expectedCheckpoint = this.checkpoint = this.last = undefined;
    this.live = [];
    this.applied = this.events = 0;
  }

  private push(write: ReadModelWrite): void {
    switch (write.op) {
      case 'user':
        this.replace(this.rowAt, write.row.userId);
        this.rowAt.set(write.row.userId, this.writes.length);
        break;
      case 'userRemove':
        this.rowAt.delete(write.userId);
        break;
      case 'searchText':
        this.replace(this.textAt, write.key);
        this.textAt.set(write.key, this.writes.length);
        break;
      case 'zadd': {
        const key = `${write.set}\n${write.member}`;
        this.replace(this.scoreAt, key);
        this.scoreAt.set(key, this.writes.length);
        break;
      }
      case 'zrem':
        this.scoreAt.delete(`${write.set}\n${write.member}`);
        break;
      case 'main':
        this.dropAt(this.mainAt);
        this.mainAt = this.writes.length;
        break;
      case 'posts':
        this.dropAt(this.postsAt);
        this.postsAt = this.writes.length;
        break;
      case 'country': {
        const at = this.countryAt.get(write.country);
        if (at !== undefined) {
          const first = this.writes[at] as Extract<ReadModelWrite, { op: 'country' }>;
          this.writes[at] = { op: 'country', country: write.country, delta: first.delta + write.delta };
          return;
        }
        this.countryAt.set(write.country, this.writes.length);
        break;
      }
      case 'chatPush': {
        const gone = this.chat.line(this.writes.length);
        if (gone !== undefined) this.dropAt(gone);
        break;
      }
      case 'chatClear':
        for (const gone of this.chat.cleared()) this.dropAt(gone);
        break;
      case 'chatDropUser':
        this.chat.erased();
        break;
      case 'progressDay':
        // A later write of the same day replaces it; a new day keeps the one before.
        if (write.day.date === this.progressDate) this.dropAt(this.progressAt);
        this.progressAt = this.writes.length;
        this.progressDate = write.day.date;
        break;
      case 'zaddMany':
      case 'email':
      case 'indexState':
        break;
      default: {
        const unknown: never = write;
        throw new Error(`Unknown read-model write ${JSON.stringify(unknown)}`);
      }
    }
    this.writes.push(write);
    this.kept++;
  }

  private replace(at: Map<string, number>, key: string): void {
    const index = at.get(key);
    if (index !== undefined) this.dropAt(index);
  }

  private dropAt(index: number): void {
    if (index < 0 || this.writes[index] === undefined) return;
    this.writes[index] = undefined;
    this.kept--;
  }
}
