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

  /** The score most of a member's entries hold (where a set looks first), or undefined when it has none. */
  mainScore(id: number): number | undefined {
    return this.main.get(id);
  }

  /** The other scores its entries hold (score → entries), for the moment a batch re-scores it. */
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
