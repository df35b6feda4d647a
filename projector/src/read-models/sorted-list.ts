/**
 * An ordered set of (score, member) with rank lookups, ordered like a Redis sorted set: by score,
 * then by member. Stored as chunks of bounded size so inserts stay cheap at a million entries
 * (a flat array would shift every element on each insert).
 */

const MAX_CHUNK = 1024;

interface Entry {
  score: number;
  member: string;
}

function less(a: Entry, b: Entry): boolean {
  return a.score < b.score || (a.score === b.score && a.member < b.member);
}

export class SortedList {
  private chunks: Entry[][] = [];
  private scores = new Map<string, number>();

  get size(): number {
    return this.scores.size;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  add(member: string, score: number): void {
    const old = this.scores.get(member);
    if (old === score) return;
    if (old !== undefined) this.removeEntry({ member, score: old });
    this.scores.set(member, score);
    const entry = { member, score };
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    const ci = this.chunkFor(entry);
    const chunk = this.chunks[ci]!;
    chunk.splice(this.positionIn(chunk, entry), 0, entry);
    if (chunk.length > MAX_CHUNK) this.chunks.splice(ci, 1, chunk.slice(0, MAX_CHUNK / 2), chunk.slice(MAX_CHUNK / 2));
  }

  remove(member: string): boolean {
    const old = this.scores.get(member);
    if (old === undefined) return false;
    this.scores.delete(member);
    this.removeEntry({ member, score: old });
    return true;
  }

  /** 0-based rank, or undefined. */
  rank(member: string): number | undefined {
    const score = this.scores.get(member);
    if (score === undefined) return undefined;
    const entry = { member, score };
    const ci = this.chunkFor(entry);
    let before = 0;
    for (let i = 0; i < ci; i++) before += this.chunks[i]!.length;
    return before + this.positionIn(this.chunks[ci]!, entry);
  }

  /** Number of entries with score strictly below `score`. */
  countBelow(score: number): number {
    const probe = { score, member: '' };
    let n = 0;
    for (const chunk of this.chunks) {
      const last = chunk[chunk.length - 1]!;
      if (less(last, probe)) {
        n += chunk.length;
        continue;
      }
      return n + this.positionIn(chunk, probe);
    }
    return n;
  }

  /** Entries with rank in [start, stop). */
  range(start: number, stop: number): Entry[] {
    const out: Entry[] = [];
    let offset = 0;
    for (const chunk of this.chunks) {
      if (offset + chunk.length <= start) {
        offset += chunk.length;
        continue;
      }
      for (let i = Math.max(0, start - offset); i < chunk.length && offset + i < stop; i++) out.push(chunk[i]!);
      offset += chunk.length;
      if (offset >= stop) break;
    }
    return out;
  }

  /** Calls `fn` on every entry in order (faster than the iterator on hot paths). */
  scan(fn: (entry: Entry) => void): void {
    for (const chunk of this.chunks) for (let i = 0; i < chunk.length; i++) fn(chunk[i]!);
  }

  *[Symbol.iterator](): IterableIterator<Entry> {
    for (const chunk of this.chunks) yield* chunk;
  }

  private removeEntry(entry: Entry): void {
    const ci = this.chunkFor(entry);
    const chunk = this.chunks[ci]!;
    const i = this.positionIn(chunk, entry);
    if (chunk[i]?.member !== entry.member) throw new Error(`SortedList out of order at ${entry.member}`);
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(ci, 1);
  }

  /** Index of the first chunk whose last entry is not less than `entry` (or the last chunk). */
  private chunkFor(entry: Entry): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid]!;
      if (less(chunk[chunk.length - 1]!, entry)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index in `chunk` whose entry is not less than `entry`. */
  private positionIn(chunk: Entry[], entry: Entry): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (less(chunk[mid]!, entry)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
