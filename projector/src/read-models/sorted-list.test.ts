import { describe, expect, it } from 'vitest';
import { MemberIds } from './member-ids';
import { MemberScores } from './member-scores';
import { rankKey } from './search';
import { SortedList } from './sorted-list';

/** A sorted set as Redis keeps it, the plain way: member → score, ordered on demand. */
class Model {
  readonly scores = new Map<string, number>();
  ordered(): Array<[string, number]> {
    return [...this.scores].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SortedList (memory read models)', () => {
  it('orders, ranks, scores and removes like a sorted set, over sets sharing their members and re-scored in any order', () => {
    const ids = new MemberIds();
    const where = new MemberScores();
    const lists = [new SortedList(ids, where), new SortedList(ids, where), new SortedList(ids, where)];
    const models = [new Model(), new Model(), new Model()];
    const next = random(42);
    // Rank keys and other members (a name sorts by its bytes, between and around the keys).
    const members = [...Array.from({ length: 3_000 }, (_, i) => rankKey(i * 7 + 1)), 'alice', '0000000', 'zz', '00000001x', ''];
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    for (let step = 0; step < 40_000; step++) {
      const k = Math.floor(next() * lists.length);
      const member = pick(members);
      const roll = next();
      if (roll < 0.7) {
        // Mostly the member's score in the other lists (as the projections write), sometimes another.
        const shared = models.find((m) => m.scores.has(member))?.scores.get(member);
        const score = shared !== undefined && next() < 0.6 ? shared : pick([0, 0, -1, -2, -3, 2.5, -1e9]);
        lists[k]!.add(ids.id(member), score);
        models[k]!.scores.set(member, score);
      } else {
        const id = ids.find(member);
        const removed = id !== undefined && lists[k]!.remove(id);
        expect(removed).toBe(models[k]!.scores.delete(member));
      }
    }
    for (let k = 0; k < lists.length; k++) {
      const want = models[k]!.ordered();
      const got = [...lists[k]!].map((e) => [ids.member(e.member), e.score]);
      expect(got).toEqual(want);
      expect(lists[k]!.size).toBe(want.length);
      for (let r = 0; r < want.length; r += 97) {
        const [member, score] = want[r]!;
        expect(lists[k]!.rank(ids.find(member)!)).toBe(r);
        expect(lists[k]!.score(ids.find(member)!)).toBe(score);
      }
      expect(lists[k]!.countBelow(0)).toBe(want.filter(([, s]) => s < 0).length);
      expect(lists[k]!.range(10, 20).map((e) => ids.member(e.member))).toEqual(want.slice(10, 20).map(([m]) => m));
      for (const member of members) if (!models[k]!.scores.has(member)) expect(lists[k]!.score(ids.id(member))).toBeUndefined();
    }
  });

  it('builds an empty list in one pass, the last score of a member given twice counting, and keeps it through a snapshot', () => {
    const ids = new MemberIds();
    const where = new MemberScores();
    const list = new SortedList(ids, where);
    const members = ['b', rankKey(5), 'a', rankKey(2), 'b'].map((m) => ids.id(m));
    list.addMany(members, [1, 0, 1, 0, -4]);
    const entries = () => [...list].map((e) => [ids.member(e.member), e.score]);
    expect(entries()).toEqual([
      ['b', -4],
      [rankKey(2), 0],
      [rankKey(5), 0],
      ['a', 1],
    ]);
    // Restored from its chunks and member table into a fresh keyspace: same entries, same look-ups.
    const ids2 = new MemberIds([...ids.table()]);
    const restored = SortedList.fromChunks(structuredClone([...list.toChunks()]), ids2, new MemberScores());
    expect([...restored].map((e) => [ids2.member(e.member), e.score])).toEqual(entries());
    expect(restored.rank(ids2.find('a')!)).toBe(3);
    restored.add(ids2.id('a'), -10);
    expect(restored.rank(ids2.find('a')!)).toBe(0);
    expect(restored.remove(ids2.find(rankKey(2))!)).toBe(true);
    expect(restored.size).toBe(3);
  });
});
