import { normalizeEmail } from '@pass/events';
import { rowIndexSetList, rowIndexSets } from '../read-models/search';
import { searchText } from '../read-models/search-text';
import type { ReadModelWrite, SortedSetName, UserRow } from '../read-models/types';
import { projection } from './projection';

/** Score in every user sorted set: members (passes > 0) first, most passes first. */
export function userScore(row: UserRow): number {
  return row.passes > 0 ? -row.passes : 0;
}

/** The order of every user sorted set: by score, then by rank key (registration order). */
export function compareByUserScore(a: UserRow, b: UserRow): number {
  const byScore = userScore(a) - userScore(b);
  if (byScore !== 0) return byScore;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export const isMember = (row: UserRow | undefined): boolean => (row?.passes ?? 0) > 0;

const sameIndexText = (a: UserRow, b: UserRow) => a.fullname === b.fullname && a.country === b.country && a.createdAt === b.createdAt;

/**
 * The index entries of many rows at once, grouped by set (a deferred index built in one pass):
 * each row in every set rowIndexSetList gives it, scored as in `users`.
 */
export function indexWrites(rows: Iterable<UserRow>): ReadModelWrite[] {
  const bySet = new Map<string, Array<[string, number]>>();
  for (const row of rows) {
    const entry: [string, number] = [row.key, userScore(row)];
    for (const set of rowIndexSetList(row)) {
      const entries = bySet.get(set);
      if (entries) entries.push(entry);
      else bySet.set(set, [entry]);
    }
  }
  const writes: ReadModelWrite[] = [];
  for (const [set, entries] of bySet) writes.push({ op: 'zaddMany', set: set as SortedSetName, entries });
  return writes;
}

/** Ranking, registry order, search index, e-mail lookup and member count: kept from the user rows. */
export const ranking = projection({
  handles: [],
  rowChanged(before, after, copy, out) {
    copy.main.members += rankingWrites(before, after, out, copy.indexed);
  },
  rowErased(before, copy, out) {
    // Out of the ranking, the registry order and every search set (also while the index is
    // deferred: a build interrupted earlier may have put the row there); no longer counted.
    out.push({ op: 'zrem', set: 'users', member: before.key });
    out.push({ op: 'searchText', key: before.key, text: null });
    for (const set of rowIndexSetList(before)) out.push({ op: 'zrem', set: set as SortedSetName, member: before.key });
    copy.main.members -= Number(isMember(before));
  },
});

/**
 * Ranking, registry order, search index and e-mail lookup of one user, as the difference between their row
 * before and after a batch: re-scores the user in `users` and in each index set they stay in,
 * adds the new sets, removes the ones they left. Appends to `writes`; returns the change in the
 * member count. Words are only worked out when they matter: most batches change a balance, not
 * a name, and tokenising (Unicode folding, date formatting) is costly.
 * Without `indexed` (the index is deferred: IndexState) only `users` and the e-mail are kept.
 */
function rankingWrites(before: UserRow | undefined, after: UserRow, writes: ReadModelWrite[], indexed: boolean): number {
  const score = userScore(after);
  const scoreChanged = !before || userScore(before) !== score;
  if (scoreChanged) writes.push({ op: 'zadd', set: 'users', member: after.key, score });
  if (indexed) indexSetWrites(before, after, score, scoreChanged, writes);
  if (!before || !sameIndexText(before, after)) writes.push({ op: 'searchText', key: after.key, text: searchText(after) });
  // E-mails never change after registration (UserRegistered is the only event that sets one).
  if (!before && after.email) writes.push({ op: 'email', email: normalizeEmail(after.email), member: after.key });
  return Number(isMember(after)) - Number(isMember(before));
}

/** The index sets' part of rankingWrites: new sets added, left ones removed, the rest re-scored if the score moved. */
function indexSetWrites(before: UserRow | undefined, after: UserRow, score: number, scoreChanged: boolean, writes: ReadModelWrite[]): void {
  if (before && !sameIndexText(before, after)) {
    const newSets = rowIndexSets(after);
    const oldSets = rowIndexSets(before);
    for (const set of newSets) {
      if (scoreChanged || !oldSets.has(set)) writes.push({ op: 'zadd', set: set as SortedSetName, member: after.key, score });
    }
    for (const set of oldSets) {
      if (!newSets.has(set)) writes.push({ op: 'zrem', set: set as SortedSetName, member: after.key });
    }
  } else if (scoreChanged) {
    // Same words (or a new row): every set, re-scored.
    for (const set of rowIndexSetList(after)) writes.push({ op: 'zadd', set: set as SortedSetName, member: after.key, score });
  }
}
