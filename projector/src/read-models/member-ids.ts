import { rankKey, rankKeySeq } from './search';

/**
 * Numbers for the members of a memory keyspace's sorted sets, so a set stores a number per entry
 * rather than a string (a user has an entry in `users` and in each of their index sets). A rank key
 * is its own ordinal, so it needs no table and numeric order is its lexical order; any other
 * member (only tests write one) gets a negative number from a table that keeps it until the
 * keyspace goes.
 */
export class MemberIds {
  private readonly byName = new Map<string, number>();
  private readonly names: string[];

  /** `names`: the table `table()` gave, from a snapshot (taken, not copied). */
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
