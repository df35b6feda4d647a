import { rankKey, rankKeySeq } from './search';

/**
 * Numbers for the members of a memory keyspace's sorted sets, so a set stores a number per entry
 * rather than a string (a keyspace holds ~18 entries per user, docs/architecture.md). A rank key
 * is its own ordinal, so it needs no table and numeric order is its lexical order; any other
 * member (only tests write one) gets a negative number from a table that keeps it until the
 * keyspace goes.
 */
export class MemberIds {
  private readonly byName = new Map<string, number>();
  private readonly names: string[];

  /** `names`: the table of `names()`, from a snapshot (taken, not copied). */
  constructor(names: string[] = []) {
    this.names = names;
    names.forEach((name, i) => this.byName.set(name, -i - 1));
  }

  /** The number of `member`, given one if it has none yet. */
  id(member: string): number {
    const seq = rankKeySeq(member);
    if (seq !== undefined) return seq;
    let id = this.byName.get(member);
    if (id === undefined) {
      this.names.push(member);
      id = -this.names.length;
      this.byName.set(member, id);
    }
    return id;
  }

  /** The number of `member` if it has one (else no set holds it). */
  find(member: string): number | undefined {
    return rankKeySeq(member) ?? this.byName.get(member);
  }

  member(id: number): string {
    return id >= 0 ? rankKey(id) : this.names[-id - 1]!;
  }

  /** Whether `a`'s member sorts before `b`'s, as Redis orders members of one score (by their bytes). */
  before(a: number, b: number): boolean {
    if (a >= 0 && b >= 0) return a < b;
    return this.member(a) < this.member(b);
  }

  /** The table of members that are not rank keys (shared: serialise it before the next write). */
  table(): string[] {
    return this.names;
  }
}

/**
 * Where a keyspace's entries are, by member: the scores its members' entries hold across every
 * sorted set, with how many entries hold each. A member's entries nearly always share one score
 * (its ranking score, in `users` and in each of its index sets), so a set finds a member by
 * looking for it at that score, one binary search, instead of keeping a member → score map of its
 * own (which cost more than the entries themselves). While a batch re-scores a member its entries
 * hold two scores for a moment; every score still held is kept, so a look-up is always exact.
 */
export class MemberScores {
  /** The score of most of a member's entries, and how many entries hold it. */
  private readonly main = new Map<number, number>();
  private readonly mainCount = new Map<number, number>();
  /** Members whose entries hold other scores too: score → entries. */
  private readonly others = new Map<number, Map<number, number>>();

  /** The scores a member's entries hold (the first is the most likely), or undefined when none. */
  mainScore(id: number): number | undefined {
    return this.main.get(id);
  }

  otherScores(id: number): ReadonlyMap<number, number> | undefined {
    return this.others.get(id);
  }

  added(id: number, score: number): void {
    const main = this.main.get(id);
    if (main === undefined) {
      this.main.set(id, score);
      this.mainCount.set(id, 1);
    } else if (main === score) {
      this.mainCount.set(id, this.mainCount.get(id)! + 1);
    } else {
      let others = this.others.get(id);
      if (!others) this.others.set(id, (others = new Map()));
      others.set(score, (others.get(score) ?? 0) + 1);
    }
  }

  removed(id: number, score: number): void {
    if (this.main.get(id) !== score) {
      const others = this.others.get(id)!;
      const left = others.get(score)! - 1;
      if (left > 0) others.set(score, left);
      else others.delete(score);
      if (others.size === 0) this.others.delete(id);
      return;
    }
    const left = this.mainCount.get(id)! - 1;
    if (left > 0) {
      this.mainCount.set(id, left);
      return;
    }
    // The main score is gone: another score the member still holds takes its place.
    const others = this.others.get(id);
    if (!others) {
      this.main.delete(id);
      this.mainCount.delete(id);
      return;
    }
    const [score2, count] = others.entries().next().value as [number, number];
    this.main.set(id, score2);
    this.mainCount.set(id, count);
    others.delete(score2);
    if (others.size === 0) this.others.delete(id);
  }
}
