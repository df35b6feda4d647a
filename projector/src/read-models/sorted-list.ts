import type { MemberIds } from './member-ids';
import type { MemberScores } from './member-scores';

/**
 * An ordered set of (score, member) with rank lookups, ordered like a Redis sorted set: by score,
 * then by member. Stored as chunks of bounded size so inserts stay cheap at a million entries
 * (a flat array would shift every element on each insert). A chunk keeps members and scores in
 * two parallel arrays of numbers (MemberIds) rather than an object or a string per entry, and the
 * list keeps no member → score map: it finds a member at the scores the keyspace's MemberScores
 * says its entries hold. An entry costs two array slots.
 */

const MAX_CHUNK = 1024;
/** `locate` answers chunk * SLOT + position (positions stay below MAX_CHUNK + 1). */
const SLOT = 2048;

export interface Entry {
  score: number;
  /** A MemberIds number. */
  member: number;
}

/** A run of entries in order; also the shape a snapshot stores. */
export interface Chunk {
  members: number[];
  scores: number[];
}

/** (s1, m1) strictly before (s2, m2) in a sorted set's order: by score, then by member. */
export function entryBefore(ids: MemberIds, s1: number, m1: number, s2: number, m2: number): boolean {
  return s1 < s2 || (s1 === s2 && m1 !== m2 && ids.before(m1, m2));
}

export class SortedList {
  private chunks: Chunk[] = [];
  private count = 0;
  /** The score `find` found its member at. */
  private found = 0;

  constructor(
    private readonly ids: MemberIds,
    private readonly where: MemberScores,
  ) {}

  /** A list from `toChunks()`'s output (a snapshot); the chunks are taken, not copied. */
  static fromChunks(chunks: Chunk[], ids: MemberIds, where: MemberScores): SortedList {
    const list = new SortedList(ids, where);
    list.chunks = chunks.filter((chunk) => chunk.members.length > 0);
    for (const chunk of list.chunks) {
      for (let i = 0; i < chunk.members.length; i++) where.added(chunk.members[i]!, chunk.scores[i]!);
      list.count += chunk.members.length;
    }
    return list;
  }

  /** The entries in order, as stored (shared, not copied: serialise them before the next write). */
  toChunks(): readonly Chunk[] {
    return this.chunks;
  }

  get size(): number {
    return this.count;
  }

  score(member: number): number | undefined {
    return this.find(member) < 0 ? undefined : this.found;
  }

  add(member: number, score: number): void {
    const at = this.find(member);
    if (at >= 0) {
      if (this.found === score) return;
      this.removeAt(at, member, this.found);
    }
    this.insert(member, score);
  }

  /**
   * Adds many entries (parallel arrays): into an empty list by one sort (an index built in one
   * pass), else one by one. Like `add`, a member already present takes the new score, and of a
   * member given twice the last score counts.
   */
  addMany(members: readonly number[], scores: readonly number[]): void {
    if (this.count > 0) {
      for (let i = 0; i < members.length; i++) this.add(members[i]!, scores[i]!);
      return;
    }
    const last = new Map<number, number>();
    members.forEach((member, i) => last.set(member, i));
    const order = last.size === members.length ? members.map((_, i) => i) : [...last.values()];
    order.sort((a, b) => (this.before(scores[a]!, members[a]!, scores[b]!, members[b]!) ? -1 : a === b ? 0 : 1));
    for (let i = 0; i < order.length; i += MAX_CHUNK / 2) {
      const run = order.slice(i, i + MAX_CHUNK / 2);
      this.chunks.push({ members: run.map((k) => members[k]!), scores: run.map((k) => scores[k]!) });
    }
    for (const k of order) this.where.added(members[k]!, scores[k]!);
    this.count = order.length;
  }

  remove(member: number): boolean {
    const at = this.find(member);
    if (at < 0) return false;
    this.removeAt(at, member, this.found);
    return true;
  }

  /** 0-based rank, or undefined. */
  rank(member: number): number | undefined {
    const at = this.find(member);
    if (at < 0) return undefined;
    const ci = Math.floor(at / SLOT);
    let before = 0;
    for (let i = 0; i < ci; i++) before += this.chunks[i]!.members.length;
    return before + (at % SLOT);
  }

  /** Number of entries with score strictly below `score`. */
  countBelow(score: number): number {
    let below = 0;
    for (const chunk of this.chunks) {
      const len = chunk.members.length;
      if (chunk.scores[len - 1]! < score) {
        below += len;
        continue;
      }
      let lo = 0;
      let hi = len;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (chunk.scores[mid]! < score) lo = mid + 1;
        else hi = mid;
      }
      return below + lo;
    }
    return below;
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
  scan(fn: (member: number, score: number) => void): void {
    for (const chunk of this.chunks) for (let i = 0; i < chunk.members.length; i++) fn(chunk.members[i]!, chunk.scores[i]!);
  }

  *[Symbol.iterator](): IterableIterator<Entry> {
    for (const chunk of this.chunks) for (let i = 0; i < chunk.members.length; i++) yield { score: chunk.scores[i]!, member: chunk.members[i]! };
  }

  /** Where `member` is (chunk * SLOT + position), its score in `found`; -1 when absent. */
  private find(member: number): number {
    if (this.count === 0) return -1;
    const main = this.where.mainScore(member);
    if (main === undefined) return -1;
    let at = this.locate(main, member);
    if (at >= 0) {
      this.found = main;
      return at;
    }
    const others = this.where.otherScores(member);
    if (others) {
      for (const score of others.keys()) {
        at = this.locate(score, member);
        if (at >= 0) {
          this.found = score;
          return at;
        }
      }
    }
    return -1;
  }

  private locate(score: number, member: number): number {
    const ci = this.chunkFor(score, member);
    const chunk = this.chunks[ci]!;
    const i = this.positionIn(chunk, score, member);
    return i < chunk.members.length && chunk.members[i] === member && chunk.scores[i] === score ? ci * SLOT + i : -1;
  }

  private insert(member: number, score: number): void {
    this.where.added(member, score);
    this.count++;
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

  private removeAt(at: number, member: number, score: number): void {
    const ci = Math.floor(at / SLOT);
    const i = at % SLOT;
    const chunk = this.chunks[ci]!;
    if (i === chunk.members.length - 1) {
      chunk.members.pop();
      chunk.scores.pop();
    } else {
      chunk.members.splice(i, 1);
      chunk.scores.splice(i, 1);
    }
    if (chunk.members.length === 0) this.chunks.splice(ci, 1);
    this.where.removed(member, score);
    this.count--;
  }

  private before(s1: number, m1: number, s2: number, m2: number): boolean {
    return entryBefore(this.ids, s1, m1, s2, m2);
  }

  /** Index of the first chunk whose last entry is not before (score, member) (or the last chunk). */
  private chunkFor(score: number, member: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid]!;
      const last = chunk.members.length - 1;
      if (this.before(chunk.scores[last]!, chunk.members[last]!, score, member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index in `chunk` whose entry is not before (score, member). */
  private positionIn(chunk: Chunk, score: number, member: number): number {
    let lo = 0;
    let hi = chunk.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(chunk.scores[mid]!, chunk.members[mid]!, score, member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
