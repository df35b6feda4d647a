/**
 * An ordered set of (score, member) with rank lookups, ordered like a Redis sorted set: by score,
 * then by member. Stored as chunks of bounded size so inserts stay cheap at a million entries
 * (a flat array would shift every element on each insert). A chunk keeps members and scores in
 * two parallel arrays rather than an object per entry: a keyspace holds ~10 entries per user
 * (words, date, pairs), so the objects cost about 40 bytes each and most of the insert time.
 */

const MAX_CHUNK = 1024;

export interface Entry {
  score: number;
  member: string;
}

/** A run of entries in order; also the shape a snapshot stores. */
export interface Chunk {
  members: string[];
  scores: number[];
}

/** The chunk's entry at i strictly before (score, member). */
function atLessThan(chunk: Chunk, i: number, score: number, member: string): boolean {
  const s = chunk.scores[i]!;
  return s < score || (s === score && chunk.members[i]! < member);
}

export class SortedList {
  private chunks: Chunk[] = [];
  private scores = new Map<string, number>();

  /** A list from `toChunks()`'s output (a snapshot); the chunks are taken, not copied. */
  static fromChunks(chunks: Chunk[]): SortedList {
    const list = new SortedList();
    list.chunks = chunks.filter((c) => c.members.length > 0);
    for (const chunk of list.chunks) for (let i = 0; i < chunk.members.length; i++) list.scores.set(chunk.members[i]!, chunk.scores[i]!);
    return list;
  }

  /** The entries in order, as stored (shared, not copied: serialise them before the next write). */
  toChunks(): readonly Chunk[] {
    return this.chunks;
  }

  get size(): number {
    return this.scores.size;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  add(member: string, score: number): void {
    const old = this.scores.get(member);
    if (old === score) return;
    if (old !== undefined) this.removeEntry(member, old);
    this.scores.set(member, score);
    if (this.chunks.length === 0) {
      this.chunks.push({ members: [member], scores: [score] });
      return;
    }
    const ci = this.chunkFor(score, member);
    const chunk = this.chunks[ci]!;
    const i = this.positionIn(chunk, score, member);
    if (i === chunk.members.length) {
      chunk.members.push(member);
      chunk.scores.push(score);
    } else {
      chunk.members.splice(i, 0, member);
      chunk.scores.splice(i, 0, score);
    }
    if (chunk.members.length > MAX_CHUNK) {
      const half = MAX_CHUNK / 2;
      const tail = { members: chunk.members.slice(half), scores: chunk.scores.slice(half) };
      chunk.members.length = half;
      chunk.scores.length = half;
      this.chunks.splice(ci + 1, 0, tail);
    }
  }

  /**
   * Adds many entries: into an empty list by one sort (an index built in one pass), else one by
   * one. Like `add`, a member already present takes the new score.
   */
  addMany(entries: ReadonlyArray<readonly [member: string, score: number]>): void {
    if (this.chunks.length > 0) {
      for (const [member, score] of entries) this.add(member, score);
      return;
    }
    for (const [member, score] of entries) this.scores.set(member, score);
    const sorted = [...this.scores].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (let i = 0; i < sorted.length; i += MAX_CHUNK / 2) {
      const run = sorted.slice(i, i + MAX_CHUNK / 2);
      this.chunks.push({ members: run.map((e) => e[0]), scores: run.map((e) => e[1]) });
    }
  }

  remove(member: string): boolean {
    const old = this.scores.get(member);
    if (old === undefined) return false;
    this.scores.delete(member);
    this.removeEntry(member, old);
    return true;
  }

  /** 0-based rank, or undefined. */
  rank(member: string): number | undefined {
    const score = this.scores.get(member);
    if (score === undefined) return undefined;
    const ci = this.chunkFor(score, member);
    let before = 0;
    for (let i = 0; i < ci; i++) before += this.chunks[i]!.members.length;
    return before + this.positionIn(this.chunks[ci]!, score, member);
  }

  /** Number of entries with score strictly below `score`. */
  countBelow(score: number): number {
    let n = 0;
    for (const chunk of this.chunks) {
      const len = chunk.members.length;
      if (atLessThan(chunk, len - 1, score, '')) {
        n += len;
        continue;
      }
      return n + this.positionIn(chunk, score, '');
    }
    return n;
  }

  /** Entries with rank in [start, stop). */
  range(start: number, stop: number): Entry[] {
    const out: Entry[] = [];
    let offset = 0;
    for (const chunk of this.chunks) {
      const len = chunk.members.length;
      if (offset + len <= start) {
        offset += len;
        continue;
      }
      for (let i = Math.max(0, start - offset); i < len && offset + i < stop; i++) out.push({ score: chunk.scores[i]!, member: chunk.members[i]! });
      offset += len;
      if (offset >= stop) break;
    }
    return out;
  }

  /** Calls `fn` on every entry in order (faster than the iterator on hot paths). */
  scan(fn: (entry: Entry) => void): void {
    for (const chunk of this.chunks) for (let i = 0; i < chunk.members.length; i++) fn({ score: chunk.scores[i]!, member: chunk.members[i]! });
  }

  *[Symbol.iterator](): IterableIterator<Entry> {
    for (const chunk of this.chunks) for (let i = 0; i < chunk.members.length; i++) yield { score: chunk.scores[i]!, member: chunk.members[i]! };
  }

  private removeEntry(member: string, score: number): void {
    const ci = this.chunkFor(score, member);
    const chunk = this.chunks[ci]!;
    const i = this.positionIn(chunk, score, member);
    if (chunk.members[i] !== member) throw new Error(`SortedList out of order at ${member}`);
    if (i === chunk.members.length - 1) {
      chunk.members.pop();
      chunk.scores.pop();
    } else {
      chunk.members.splice(i, 1);
      chunk.scores.splice(i, 1);
    }
    if (chunk.members.length === 0) this.chunks.splice(ci, 1);
  }

  /** Index of the first chunk whose last entry is not before (score, member) (or the last chunk). */
  private chunkFor(score: number, member: string): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid]!;
      if (atLessThan(chunk, chunk.members.length - 1, score, member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index in `chunk` whose entry is not before (score, member). */
  private positionIn(chunk: Chunk, score: number, member: string): number {
    let lo = 0;
    let hi = chunk.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (atLessThan(chunk, mid, score, member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
