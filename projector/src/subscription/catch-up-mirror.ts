import type { GlobalPostView, ProgressDay } from '@pass/events';
import type { Keyspace } from '../read-models/port';
import type { BatchSnapshot, IndexState, MainRecord, UserRow, WriteBatch } from '../read-models/types';
import { ConcurrentProjectionError, ReadModelsChangedError } from '../projections/apply';
import { projectBatch } from '../projections/batch';
import type { PositionedEvent, ProjectedBatch } from '../projections/types';
import { compareByUserScore, indexWrites } from '../projections/ranking';
import { usersOf } from '../projections/users';

/** Rows per write of a deferred index build: a few hundred thousand set entries per script. */
const INDEX_BUILD_ROWS = 10_000;

/**
 * What a catching-up projector has stored (figures, posts, last progress day, checkpoint, every
 * row it wrote or read), kept in memory so batch N+1 is projected while the store still applies
 * batch N. Exact because this projector is the keyspace's only writer and every apply checks
 * the stored checkpoint: if anything else moved it, the apply is refused and a new mirror starts.
 * A row it lacks is read from the keyspace, unless that was empty (a rebuild reads nothing back).
 * With a deferred index it holds every row and builds the index once caught up (`buildIndex`);
 * for an in-process keyspace, only the current window's rows (`windowStored`).
 */
export class CatchUpMirror {
  private readonly rows = new Map<string, UserRow>();
  private base: { checkpoint: string | null; main: MainRecord; posts: GlobalPostView[]; progressDay: ProgressDay | null } | undefined;
  /** Whether `rows` holds every row of the keyspace (so a row it lacks does not exist). */
  private allRows: boolean;
  private readonly deferred: boolean;
  /** Whether rows stay once stored (not for an in-process keyspace). */
  private readonly keepsRows: boolean;
  /**
   * Users whose row a projected batch removed (an erasure): never read back, since the window
   * removing them may not be stored yet.
   */
  private readonly removed = new Set<string>();
  /** Whether a deferred catch-up has dealt with what an earlier, cut-off one left. */
  private resumed = false;

  /**
   * `checkpoint`: the keyspace's checkpoint when the projector subscribed (null: empty keyspace);
   * `index`: its search index's state then.
   */
  constructor(
    private readonly keyspace: Keyspace,
    private readonly checkpoint: string | null,
    index: IndexState = 'complete',
    /** Rows per write of a deferred index build (tests use a few, to build in many writes). */
    private readonly indexBuildRows = INDEX_BUILD_ROWS,
  ) {
    this.keepsRows = !keyspace.inProcess;
    this.allRows = this.keepsRows && checkpoint === null;
    this.deferred = index === 'deferred';
  }

  /** The window holding every batch projected so far was handed to the keyspace to store. */
  windowStored(): void {
    if (!this.keepsRows) this.rows.clear();
  }

  /**
   * Projects a batch from the mirror and records its result, as if it were already stored. The
   * caller must apply the returned batch (in order) and drop the mirror if any apply fails.
   */
  async project(events: PositionedEvent[]): Promise<ProjectedBatch> {
    if (this.deferred && !this.resumed) await this.resumeDeferred();
    const ids = usersOf(events);
    const missing: string[] = [];
    if (!this.base || !this.allRows) for (const id of ids) if (!this.rows.has(id) && !this.removed.has(id)) missing.push(id);
    if (!this.base || missing.length > 0) {
      // Sent after the applies still in flight on the same connection, so it sees them.
      const read = await this.keyspace.snapshot(missing);
      if (!this.base) {
        if (read.checkpoint !== this.checkpoint) throw new ReadModelsChangedError(this.keyspace.id, read.checkpoint, this.checkpoint);
        this.base = { checkpoint: read.checkpoint, main: read.main, posts: read.posts, progressDay: read.progressDay };
      }
      for (const [id, row] of read.users) this.rows.set(id, row);
    }
    const users = new Map<string, UserRow>();
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row) users.set(id, row);
    }
    const snapshot: BatchSnapshot = { checkpoint: this.base.checkpoint, main: this.base.main, posts: this.base.posts, progressDay: this.base.progressDay, users };
    const projected = projectBatch(events, snapshot, this.deferred ? 'defer' : 'write');
    if (!projected.batch) return projected;
    for (const write of projected.batch.writes) {
      if (write.op === 'user') {
        this.rows.set(write.row.userId, write.row);
        this.removed.delete(write.row.userId);
      } else if (write.op === 'userRemove') {
        this.rows.delete(write.userId);
        this.removed.add(write.userId);
      } else if (write.op === 'main') {
        this.base.main = write.main;
      } else if (write.op === 'posts') {
        this.base.posts = write.posts;
      } else if (write.op === 'progressDay') {
        this.base.progressDay = write.day;
      }
    }
    this.base.checkpoint = projected.batch.checkpoint;
    return projected;
  }

  /**
   * A deferred catch-up cut off earlier (its build too, maybe): index sets it may have left go,
   * and every stored row is read back, so the build at the end has them all.
   */
  private async resumeDeferred(): Promise<void> {
    this.resumed = true;
    if (this.checkpoint === null) return;
    await this.keyspace.dropIndex();
    if (!this.keepsRows) return;
    for await (const page of this.keyspace.storedRows()) for (const row of page) this.rows.set(row.userId, row);
    this.allRows = true;
  }

  /**
   * Caught up, every batch stored: builds a deferred index from the rows, in writes of
   * `indexBuildRows` rows that leave the checkpoint where it is, then marks it complete. Returns
   * the rows indexed (0: nothing was deferred, or nothing projected yet).
   */
  async buildIndex(): Promise<number> {
    const checkpoint = this.base ? this.base.checkpoint : this.checkpoint;
    if (!this.deferred || checkpoint === null) return 0;
    if (!this.resumed) await this.resumeDeferred();
    const apply = async (writes: WriteBatch['writes']) => {
      if ((await this.keyspace.apply({ expectedCheckpoint: checkpoint, checkpoint, writes })) === 'stale') throw new ConcurrentProjectionError(this.keyspace.id);
    };
    // One write is sent while the one before it runs: the store works through a write (a
    // script, in Redis) while the next one's sets are worked out and sent, instead of the two
    // taking turns. Every write checks the same checkpoint, so their order does not matter.
    let inFlight: Promise<void> | undefined;
    let indexed = 0;
    let chunk: UserRow[] = [];
    try {
      for await (const row of this.allStoredRows()) {
        chunk.push(row);
        if (chunk.length === this.indexBuildRows) {
          const before = inFlight;
          inFlight = apply(indexWrites(chunk));
          inFlight.catch(() => undefined); // reported when awaited
          await before;
          indexed += chunk.length;
          chunk = [];
        }
      }
      // The index is marked complete only once every set before it is stored.
      await inFlight;
    } catch (error) {
      // The write still in flight lands (or fails) first: a build resumed after this failure
      // must not meet it arriving late, after it dropped the index.
      await inFlight?.catch(() => undefined);
      throw error;
    }
    await apply([...indexWrites(chunk), { op: 'indexState', state: 'complete' }]);
    return indexed + chunk.length;
  }

  /** Every row stored: the mirror's own, or the keyspace's when the mirror keeps none. */
  private async *allStoredRows(): AsyncIterable<UserRow> {
    if (this.keepsRows) {
      // Last in the sets' order first: each entry then comes before all those already in its
      // set, where Redis puts it after one comparison in a small set (a listpack, scanned from
      // its start), instead of after most of them (docs/architecture.md, "Read side").
      yield* [...this.rows.values()].sort((a, b) => compareByUserScore(b, a));
      return;
    }
    // Stored rows are read a page at a time; the build adds index sets only, never rows.
    for await (const page of this.keyspace.storedRows()) yield* page;
  }
}
