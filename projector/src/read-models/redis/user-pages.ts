import { createHash } from 'node:crypto';
import type { RedisConnection } from '../redis-admin';
import { rankKey, searchPlan, UNPAIRED_SET } from '../search';
import type { TextIndex } from '../text-index';
import type { TextSearch, UserPage, UserPageQuery, UserRow } from '../types';
import { INDEX_MARKER } from './keys';
import { loadLua, runLua } from './lua';

// The query side's ranking and search pages of a keyspace.

/**
 * One page of users in one round trip (page.lua, which lists its KEYS and ARGV): count, rows and
 * their ranks in `users`. Index sets hold `users`' scores, so a filtered page is a range read of
 * one set: a word's prefix set, or for more words their smallest pair set intersected with the
 * words' sets (kept INTERSECTION_TTL_MS: multi-word results may lag writes that long); registry
 * words also page the masked e-mail sets, merged by rank. Without a usable pair set the sets are
 * intersected directly (projector/README.md, "Multi-word search").
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

const ROWS = loadLua(new URL('./rows.lua', import.meta.url));

/** A page of a search the text index answers (`text`): the matches from `index`, their rows and ranks from Redis. */
export async function readTextPage(redis: RedisConnection, prefix: string, index: TextIndex, text: TextSearch, query: UserPageQuery): Promise<UserPage> {
  const page = index.page({ ...text, membersOnly: query.membersOnly, offset: query.offset, limit: query.limit });
  if (page.ordinals.length === 0) return { total: page.total, matchedBy: 'text', rows: [] };
  const keys = page.ordinals.map(rankKey);
  const [rowsJson, ranksJson] = (await runLua(redis, ROWS, 2, [`${prefix}z:users`, `${prefix}rows`, ...keys])) as [string, string];
  const rows = JSON.parse(rowsJson) as UserRow[];
  const ranks = JSON.parse(ranksJson) as number[];
  return { total: page.total, matchedBy: 'text', rows: rows.map((row, i) => ({ rank: ranks[i]! + 1, row })) };
}
