import { createHash } from 'node:crypto';
import type { RedisConnection } from '../redis-admin';
import { searchPlan, UNPAIRED_SET } from '../search';
import type { UserPage, UserPageQuery, UserRow } from '../types';
import { INDEX_MARKER } from './keys';
import { loadLua, runLua } from './lua';

// The query side's ranking and search pages of a keyspace.

/**
 * One page of users in a single round trip (page.lua): count, range, rows and (for a filtered set) each
 * row's rank in `users`. Every index set has the same members' scores as `users`, so a filtered
 * page is a range read of one set:
 * - one word: its prefix set;
 * - more: the smallest pair set of the query's word starts (search.ts), intersected with the
 *   words' sets (a pair set stands alone for two-letter words, which it holds exactly). It holds
 *   a few thousand rows where a prefix set holds tens of thousands, so the intersection is
 *   cheap; it is still kept INTERSECTION_TTL_MS for the next pages and for others searching the
 *   same words (multi-word results can lag writes by that long).
 * - registry words: the union of that and the same done on the masked e-mail sets (registry-only
 *   sets of rows without a name), paged by merging the two by rank (bisection for the page's
 *   first row, then one range of each), never stored.
 * A query without two words of different starts (a word and a date) intersects its sets
 * directly: a date set holds one day's registrations. So does a query matched by a row too long
 * to be paired (UNPAIRED_SET, normally empty), and any query on a keyspace projected before this
 * index (no INDEX_MARKER: it lacks the pair sets until rebuilt), so results never depend on
 * which index answered.
 * KEYS: users, rows, the set to page (or the result's cache key), the unpaired set, the index
 * marker, two scratch keys, then the query's sets (n of them) and its pair sets, then those of
 * the registry's masked e-mail sets if any. ARGV: ttl ms, members-only flag, first rank, last
 * rank, then per part n, the number of pair sets, and the two 0-based set indexes of each pair
 * set (-1: a word the pair set does not stand for).
 * Returns the total, the page's rows as one JSON array and their 0-based ranks as another: one
 * bulk string to decode and one JSON.parse, where 50 separate replies cost the reader about as
 * much CPU as the rest of the request.
 */
const PAGE = loadLua(new URL('./page.lua', import.meta.url));
const INTERSECTION_TTL_MS = 10_000;

/** A page of the ranking or of a search (UserPageQuery) in the keyspace under `prefix`. */
export async function readUserPage(redis: RedisConnection, prefix: string, query: UserPageQuery): Promise<UserPage> {
  if (query.email !== undefined) return readUserByEmail(redis, prefix, query);
  const users = `${prefix}z:users`;
  const plan = searchPlan(query.sets);
  const masked = query.registrySets ? searchPlan(query.registrySets) : undefined;
  const setKey = (set: string) => `${prefix}z:${set}`;
  const parts = masked ? [plan, masked] : [plan];
  let target: string;
  if (plan.sets.length <= 1 && !masked) target = setKey(plan.sets[0] ?? 'users');
  else target = `${prefix}tmp:${createHash('sha1').update(parts.map((part) => part.sets.join('\n')).join('\n|\n')).digest('hex')}`;
  const keys = [users, `${prefix}rows`, target, setKey(UNPAIRED_SET), `${prefix}${INDEX_MARKER}`, `${target}:w`, `${target}:m`];
  const args: Array<string | number> = [INTERSECTION_TTL_MS, query.membersOnly ? '1' : '0', query.offset, query.offset + query.limit - 1];
  for (const part of parts) {
    keys.push(...part.sets.map(setKey), ...part.pairs.map(setKey));
    args.push(part.sets.length, part.pairs.length, ...part.pairWords.flat());
  }
  const [total, rowsJson, ranksJson] = (await runLua(redis, PAGE, keys.length, [...keys, ...args])) as [number, string, string];
  const rows = JSON.parse(rowsJson) as UserRow[];
  const ranks = JSON.parse(ranksJson) as number[];
  return { total, rows: rows.map((row, i) => ({ rank: ranks[i]! + 1, row })) };
}

/** The registry's e-mail search: one hash lookup, then the row if it is in scope. */
async function readUserByEmail(redis: RedisConnection, prefix: string, query: UserPageQuery): Promise<UserPage> {
  const key = await redis.hget(`${prefix}emails`, query.email!);
  if (!key) return { total: 0, rows: [] };
  const res = (await redis.multi().zscore(`${prefix}z:users`, key).zrank(`${prefix}z:users`, key).hget(`${prefix}rows`, key).exec()) ?? [];
  for (const [err] of res) if (err) throw err;
  const [score, rank, json] = [res[0]![1] as string | null, res[1]![1] as number | null, res[2]![1] as string | null];
  if (score === null || rank === null || !json || (query.membersOnly && Number(score) >= 0)) return { total: 0, rows: [] };
  return { total: 1, rows: query.offset > 0 ? [] : [{ rank: rank + 1, row: JSON.parse(json) as UserRow }] };
}
