import { emailToken, rowIndexSets } from '../read-models/search';
import type { ReadModelWrite, SortedSetName, UserRow } from '../read-models/types';

/** Score in every user sorted set: members (passes > 0) first, most passes first. */
export function userScore(row: UserRow): number {
  return row.passes > 0 ? -row.passes : 0;
}

export const isMember = (row: UserRow | undefined): boolean => (row?.passes ?? 0) > 0;

/**
 * Ranking, registry order, search index and e-mail lookup of one user, as the difference between their row
 * before and after a batch: re-scores the user in `users` and in each index set they stay in,
 * adds the new sets, removes the ones they left. Returns the change in the member count too.
 */
export function rankingWrites(before: UserRow | undefined, after: UserRow): { writes: ReadModelWrite[]; membersDelta: number } {
  const writes: ReadModelWrite[] = [];
  const score = userScore(after);
  const scoreChanged = !before || userScore(before) !== score;
  const oldSets = before ? rowIndexSets(before) : new Set<string>();
  const newSets = rowIndexSets(after);
  if (scoreChanged) writes.push({ op: 'zadd', set: 'users', member: after.key, score });
  for (const set of newSets) {
    if (scoreChanged || !oldSets.has(set)) writes.push({ op: 'zadd', set: set as SortedSetName, member: after.key, score });
  }
  for (const set of oldSets) {
    if (!newSets.has(set)) writes.push({ op: 'zrem', set: set as SortedSetName, member: after.key });
  }
  // E-mails never change after registration (UserRegistered is the only event that sets one).
  if (!before && after.email) writes.push({ op: 'email', email: emailToken(after.email), member: after.key });
  return { writes, membersDelta: Number(isMember(after)) - Number(isMember(before)) };
}
