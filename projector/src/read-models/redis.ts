import { createHash } from 'node:crypto';
import { assertNever, type ChatHistory, type ChatMessageView, type GlobalPostView } from '@pass/events';
import { INITIAL_KEYSPACE, type Keyspace, type ReadModelStore } from './port';
import { scanKeys, unlinkKeys, type RedisConnection } from './redis-admin';
import { searchPlan, UNPAIRED_SET } from './search';
import {
  emptyMain,
  CHAT_HISTORY_LIMIT,
  type BatchSnapshot,
  type CountriesRecord,
  type IndexState,
  type MainRecord,
  type ReadModelDump,
  type ReadModelWrite,
  type UserPage,
  type UserPageQuery,
  type UserRow,
  type WriteBatch,
} from './types';

/** The channel every applied batch announces its keyspace's id on. */
export const changesChannel = (root: string): string => `${root}:changed`;

/**
 * Where one keyspace's keys start. The braces are a hash tag: on a Redis Cluster every key of a
 * keyspace hashes to the same slot, which the apply script needs (it writes all of them and the
 * checkpoint as one atomic step) and so do the page script and the MULTIs that read several.
 * Keyspaces of one deployment land on different slots, `<root>:active` on its own.
 */
export const keyspacePrefix = (root: string, id: string): string => `${root}:{${id}}:`;

/*
 * Key layout, under `<root>:{<keyspace>}:` (keyspacePrefix)
 *   checkpoint        string  global position of the last applied event
 *   main              string  JSON MainRecord
 *   rows              hash    rank key → JSON UserRow
 *   uid               hash    userId → rank key
 *   z:users, z:ix:*   sorted sets (see SortedSetName), word, date and pair sets (search.ts)
 *   emails            hash    lower-cased e-mail → rank key
 *   countries         zset    country, score = -members (so ties sort alphabetically)
 *   chat              list    JSON ChatMessageView, newest last, capped
 *   posts             string  JSON GlobalPostView[], newest first
 *   tmp:*             short-lived intersections and unions of search sets (several words, registry words)
 *   index:prefix-v2   present when every row has the current search index (INDEX_MARKER)
 *   index:deferred    present while a catch-up defers the index to its end (INDEX_DEFERRED)
 * and `<root>:active` names the keyspace readers use; `<root>:changed` is a pub/sub channel.
 */

/**
 * Present in a keyspace projected from its start with the current search index (word prefixes,
 * pair sets of word starts, masked e-mail sets), once that index is complete (IndexState). A new
 * name for each new index: a keyspace without it (nor INDEX_DEFERRED) is read without pair sets
 * and re-projected at start (ReadModelStore.outdated).
 */
export const INDEX_MARKER = 'index:prefix-v2';
/** Present while a keyspace's index is deferred (IndexState): its catch-up builds it at the end. */
export const INDEX_DEFERRED = 'index:deferred';

/**
 * Applies a batch in one script: checks the checkpoint, then runs every write and stores the new
 * checkpoint. Redis runs a script atomically, so a crash leaves either all of it or none. Op codes
 * are checked before the first write because Redis does not roll back a script that fails halfway.
 * It then announces the keyspace's id on the store's changes channel (ARGV[4], ARGV[5]), so a
 * reader that keeps what it built from the read models knows when to build again (change-watch.ts).
 * KEYS: the checkpoint. ARGV: expected checkpoint, new checkpoint, key prefix, channel, keyspace
 * id, the writes (one JSON array of strings, encodeWrites), then the values the writes store as
 * JSON (rows, figures, posts, chat lines), each its own argument, which the writes name by number.
 */
const APPLY_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return 0 end
-- The writes come as one JSON array of strings (encodeWrites): millions of separate arguments
-- cost the client more to send than the script spends on them (docs/benchmarks.md). The JSON
-- values they store come as arguments of their own (ARGV[6 + n] for value n): escaped inside that
-- array, they cost the client and this decoder more than all the rest of it.
local w = cjson.decode(ARGV[6])
local function value(n)
  return ARGV[6 + tonumber(n)]
end
local arity = { S = 3, U = 4, Z = 4, R = 3, C = 3, L = 3, D = 2, E = 3, Y = 4, X = 2, I = 2 }
-- Width of the op at i: fixed, or for M (set, count, then count score/member pairs) by its count.
local function width(i)
  local op = w[i]
  if op == 'M' then
    local count = tonumber(w[i + 2])
    if count == nil then return nil end
    return 3 + 2 * count
  end
  return arity[op]
end
local n = #w
local i = 1
while i <= n do
  local step = width(i)
  if step == nil then return redis.error_reply('unknown read-model op ' .. tostring(w[i])) end
  i = i + step
end
local p = ARGV[3]
-- Rows, e-mails and single scores wait in lists and go out as one HSET or ZADD per key (in
-- slices), not one call each: every call has a cost of its own, which a rebuild of 1,000,000
-- events paid some 600,000 times (docs/benchmarks.md). What waits is sent before any op that
-- reads or removes the same keys, and the last of two values for one field or member still wins,
-- so the outcome is the writes' order.
local rowsKey, uidKey, emailsKey = p .. 'rows', p .. 'uid', p .. 'emails'
local rowArgs, uidArgs, emailArgs = {}, {}, {}
local scoreArgs = {}
-- args[from..to] as arguments of cmd on key, in slices: unpack puts every value on Lua's stack,
-- which holds about 8,000.
local function sendRange(cmd, key, args, from, to)
  for j = from, to, 4000 do redis.call(cmd, key, unpack(args, j, math.min(j + 3999, to))) end
end
local function sendAll(cmd, key, args)
  sendRange(cmd, key, args, 1, #args)
end
local function flushHashes()
  if #rowArgs > 0 then
    sendAll('HSET', rowsKey, rowArgs)
    sendAll('HSET', uidKey, uidArgs)
    rowArgs, uidArgs = {}, {}
  end
  if #emailArgs > 0 then
    sendAll('HSET', emailsKey, emailArgs)
    emailArgs = {}
  end
end
local function flushScores(set)
  local args = scoreArgs[set]
  if args == nil then return end
  sendAll('ZADD', p .. 'z:' .. set, args)
  scoreArgs[set] = nil
end
local function flushAllScores()
  -- Each set is its own key: the order they are sent in changes nothing.
  for set in pairs(scoreArgs) do flushScores(set) end
end
i = 1
while i <= n do
  local op = w[i]
  if op == 'U' then
    local r, u = #rowArgs, #uidArgs
    rowArgs[r + 1] = w[i + 1]
    rowArgs[r + 2] = value(w[i + 3])
    uidArgs[u + 1] = w[i + 2]
    uidArgs[u + 2] = w[i + 1]
  elseif op == 'Z' then
    local set = w[i + 1]
    local args = scoreArgs[set]
    if args == nil then
      args = {}
      scoreArgs[set] = args
    end
    args[#args + 1] = w[i + 2]
    args[#args + 1] = w[i + 3]
  elseif op == 'M' then
    flushScores(w[i + 1])
    sendRange('ZADD', p .. 'z:' .. w[i + 1], w, i + 3, i + 2 + 2 * tonumber(w[i + 2]))
  elseif op == 'I' then
    if w[i + 1] == 'complete' then
      redis.call('SET', p .. '${INDEX_MARKER}', '1')
      redis.call('DEL', p .. '${INDEX_DEFERRED}')
    else
      redis.call('SET', p .. '${INDEX_DEFERRED}', '1')
    end
  elseif op == 'E' then
    local e = #emailArgs
    emailArgs[e + 1] = w[i + 1]
    emailArgs[e + 2] = w[i + 2]
  elseif op == 'R' then
    flushScores(w[i + 1])
    redis.call('ZREM', p .. 'z:' .. w[i + 1], w[i + 2])
  elseif op == 'C' then
    local k = p .. 'countries'
    local s = redis.call('ZINCRBY', k, w[i + 1], w[i + 2])
    if tonumber(s) >= 0 then redis.call('ZREM', k, w[i + 2]) end
  elseif op == 'L' then
    local k = p .. 'chat'
    redis.call('RPUSH', k, value(w[i + 1]))
    redis.call('LTRIM', k, -tonumber(w[i + 2]), -1)
  elseif op == 'S' then
    redis.call('SET', p .. w[i + 1], value(w[i + 2]))
  elseif op == 'D' then
    -- Any key by name: whatever waits is sent first.
    flushHashes()
    flushAllScores()
    redis.call('DEL', p .. w[i + 1])
  elseif op == 'Y' then
    flushHashes()
    redis.call('HDEL', rowsKey, w[i + 1])
    if redis.call('HGET', uidKey, w[i + 2]) == w[i + 1] then redis.call('HDEL', uidKey, w[i + 2]) end
    if w[i + 3] ~= '' and redis.call('HGET', emailsKey, w[i + 3]) == w[i + 1] then redis.call('HDEL', emailsKey, w[i + 3]) end
  elseif op == 'X' then
    local k = p .. 'chat'
    local lines = redis.call('LRANGE', k, 0, -1)
    local keep = {}
    for _, line in ipairs(lines) do
      local ok, m = pcall(cjson.decode, line)
      if not (ok and type(m) == 'table' and m.userId == w[i + 1]) then keep[#keep + 1] = line end
    end
    if #keep ~= #lines then
      redis.call('DEL', k)
      sendAll('RPUSH', k, keep)
    end
  end
  i = i + width(i)
end
flushHashes()
flushAllScores()
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`;
const APPLY_SHA = createHash('sha1').update(APPLY_SCRIPT).digest('hex');

/**
 * One page of users in a single round trip: count, range, rows and (for a filtered set) each
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
const PAGE_SCRIPT = `
-- The set of the rows matching every set of one part (KEYS from k, ARGV from a), intersected
-- into dest (kept INTERSECTION_TTL_MS, reused meanwhile) when no single set holds them.
local function resolve(dest, k, a)
  if redis.call('EXISTS', dest) == 1 then return dest end
  local n, npairs = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local sets = {}
  for i = 1, n do sets[i] = KEYS[k + i - 1] end
  local inter = sets
  if npairs > 0 and redis.call('EXISTS', KEYS[5]) == 1 then
    local probe = { n + 1, KEYS[4] }
    for i = 1, n do probe[#probe + 1] = sets[i] end
    probe[#probe + 1] = 'LIMIT'
    probe[#probe + 1] = 1
    if redis.call('ZINTERCARD', unpack(probe)) == 0 then
      local best, bestCard = 0, -1
      for p = 1, npairs do
        local card = redis.call('ZCARD', KEYS[k + n + p - 1])
        if bestCard < 0 or card < bestCard then best, bestCard = p, card end
      end
      local wa = tonumber(ARGV[a + 2 * best]) + 1
      local wb = tonumber(ARGV[a + 1 + 2 * best]) + 1
      inter = { KEYS[k + n + best - 1] }
      for i = 1, n do
        if i ~= wa and i ~= wb then inter[#inter + 1] = sets[i] end
      end
    end
  end
  if #inter == 1 then return inter[1] end
  local args = { dest, #inter }
  for i = 1, #inter do args[#args + 1] = inter[i] end
  args[#args + 1] = 'WEIGHTS'
  args[#args + 1] = 1
  for i = 2, #inter do args[#args + 1] = 0 end
  redis.call('ZINTERSTORE', unpack(args))
  redis.call('PEXPIRE', dest, ARGV[1])
  return dest
end
local membersOnly = ARGV[2] == '1'
local function count(set)
  if membersOnly then return redis.call('ZCOUNT', set, '-inf', '(0') end
  return redis.call('ZCARD', set)
end
-- Ranks start..stop of a set, none (not the whole set) when stop < start.
local function slice(set, start, stop)
  if stop < start then return {} end
  return redis.call('ZRANGE', set, start, stop, 'WITHSCORES')
end
-- Sorted-set order: by score, then by member.
local function before(s1, m1, s2, m2)
  s1, s2 = tonumber(s1), tonumber(s2)
  return s1 < s2 or (s1 == s2 and m1 < m2)
end
local first, last = tonumber(ARGV[3]), tonumber(ARGV[4])
local target = KEYS[3]
local n = tonumber(ARGV[5])
local npairs = tonumber(ARGV[6])
local total, flat
if #ARGV == 6 + 2 * npairs then
  if n > 1 then target = resolve(target, 8, 5) end
  total = count(target)
  flat = redis.call('ZRANGE', target, first, last, 'WITHSCORES')
else
  -- Registry words: rows with those words, or rows shown by their masked e-mail (no words), never
  -- both, so a page of the union is merged from the two sets' ranks instead of stored: a union of
  -- a common word's and a common domain's sets would copy hundreds of thousands of rows.
  local a = resolve(KEYS[6], 8, 5)
  local b = resolve(KEYS[7], 8 + n + npairs, 7 + 2 * npairs)
  local na, nb = count(a), count(b)
  total = na + nb
  flat = {}
  if first < total then
    -- i: how many of the union's first rows (ranks below first) are a's, by bisection.
    local lo, hi = math.max(0, first - nb), math.min(first, na)
    while lo < hi do
      local i = math.floor((lo + hi) / 2)
      local x = slice(a, i, i)
      local y = slice(b, first - i - 1, first - i - 1)
      if before(x[2], x[1], y[2], y[1]) then lo = i + 1 else hi = i end
    end
    local size = last - first + 1
    local xa = slice(a, lo, math.min(lo + size, na) - 1)
    local xb = slice(b, first - lo, math.min(first - lo + size, nb) - 1)
    local p, q = 1, 1
    while #flat < 2 * size and (p <= #xa or q <= #xb) do
      if q > #xb or (p <= #xa and before(xa[p + 1], xa[p], xb[q + 1], xb[q])) then
        flat[#flat + 1] = xa[p]
        flat[#flat + 1] = xa[p + 1]
        p = p + 2
      else
        flat[#flat + 1] = xb[q]
        flat[#flat + 1] = xb[q + 1]
        q = q + 2
      end
    end
  end
end
local keys = {}
for i = 1, #flat, 2 do
  if membersOnly and tonumber(flat[i + 1]) >= 0 then break end
  keys[#keys + 1] = flat[i]
end
if #keys == 0 then return { total, '[]', '[]' } end
local json = redis.call('HMGET', KEYS[2], unpack(keys))
local rows, ranks = {}, {}
for i, k in ipairs(keys) do
  if json[i] then
    rows[#rows + 1] = json[i]
    -- Unfiltered pages are ranked by position; filtered ones by the row's rank in users.
    if target == KEYS[1] then ranks[#ranks + 1] = first + i - 1 else ranks[#ranks + 1] = redis.call('ZRANK', KEYS[1], k) end
  end
end
return { total, '[' .. table.concat(rows, ',') .. ']', '[' .. table.concat(ranks, ',') .. ']' }
`;
const PAGE_SHA = createHash('sha1').update(PAGE_SCRIPT).digest('hex');
export const INTERSECTION_TTL_MS = 10_000;

/**
 * The country count and the top of the countries set, read together as one command: a
 * MULTI/EXEC of the same two reads cost the reader four times the CPU of a single reply.
 */
const COUNTRIES_SCRIPT = `
return { redis.call('ZCARD', KEYS[1]), redis.call('ZRANGE', KEYS[1], 0, ARGV[1], 'WITHSCORES') }
`;
const COUNTRIES_SHA = createHash('sha1').update(COUNTRIES_SCRIPT).digest('hex');

/**
 * What a live batch starts from, in one command: the checkpoint, the figures, the posts and the
 * rows of the batch's members (their rank keys looked up in `uid`, then their rows), instead of a
 * MULTI and a second HMGET for the rows. Rows come back in the order of ARGV, false when absent.
 * Keys: checkpoint, main, posts, uid, rows. Members are looked up a thousand at a time (Lua's
 * `unpack` has a stack limit; a live batch has at most a read page of events).
 */
const SNAPSHOT_SCRIPT = `
local rows = {}
for from = 1, #ARGV, 1000 do
  local to = math.min(from + 999, #ARGV)
  local keys = redis.call('HMGET', KEYS[4], unpack(ARGV, from, to))
  local present, at = {}, {}
  for i, k in ipairs(keys) do
    rows[from + i - 1] = false
    if k then present[#present + 1] = k; at[#at + 1] = from + i - 1 end
  end
  if #present > 0 then
    local found = redis.call('HMGET', KEYS[5], unpack(present))
    for i, json in ipairs(found) do rows[at[i]] = json end
  end
end
return { redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3]), rows }
`;
const SNAPSHOT_SHA = createHash('sha1').update(SNAPSHOT_SCRIPT).digest('hex');

/**
 * Encodes writes as the apply script's list of op codes and operands, sent as one JSON array, and
 * the JSON values they store, sent beside it (`values`; an op names its value by its 1-based
 * number). Every operand is made well-formed first: a lone UTF-16 surrogate reaches Redis as
 * U+FFFD, as it would as a separate argument, instead of a JSON escape the script cannot decode.
 * The values need nothing: JSON.stringify writes a lone surrogate as an escape.
 */
export function encodeWrites(writes: ReadModelWrite[]): { ops: string; values: string[] } {
  const args: string[] = [];
  const values: string[] = [];
  const value = (json: string) => String(values.push(json));
  for (const w of writes) {
    switch (w.op) {
      case 'main':
        args.push('S', 'main', value(JSON.stringify(w.main)));
        break;
      case 'user':
        args.push('U', w.row.key, w.row.userId, value(JSON.stringify(w.row)));
        break;
      case 'zadd':
        args.push('Z', w.set, String(w.score), w.member);
        break;
      case 'zaddMany':
        args.push('M', w.set, String(w.entries.length));
        for (const [member, score] of w.entries) args.push(String(score), member);
        break;
      case 'indexState':
        args.push('I', w.state);
        break;
      case 'zrem':
        args.push('R', w.set, w.member);
        break;
      case 'email':
        args.push('E', w.email, w.member);
        break;
      case 'country':
        args.push('C', String(-w.delta), w.country);
        break;
      case 'chatPush':
        args.push('L', value(JSON.stringify(w.message)), String(CHAT_HISTORY_LIMIT));
        break;
      case 'chatClear':
        args.push('D', 'chat');
        break;
      case 'posts':
        args.push('S', 'posts', value(JSON.stringify(w.posts)));
        break;
      case 'userRemove':
        args.push('Y', w.key, w.userId, w.email);
        break;
      case 'chatDropUser':
        args.push('X', w.userId);
        break;
      default:
        assertNever(w);
    }
  }
  for (let i = 0; i < args.length; i++) args[i] = args[i]!.toWellFormed();
  return { ops: JSON.stringify(args), values };
}

/** IndexState of the keyspace under prefix `p`: an empty one's is deferred (nothing indexed yet). */
async function indexStateAt(redis: RedisConnection, p: string): Promise<IndexState> {
  const [complete, deferred, projected] = await Promise.all([redis.exists(`${p}${INDEX_MARKER}`), redis.exists(`${p}${INDEX_DEFERRED}`), redis.exists(`${p}checkpoint`)]);
  if (complete === 1) return 'complete';
  return deferred === 1 || projected === 0 ? 'deferred' : 'outdated';
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

const parseJson = <T>(raw: string | null | undefined, fallback: T): T => (raw ? (JSON.parse(raw) as T) : fallback);

class RedisKeyspace implements Keyspace {
  private readonly p: string;
  readonly inProcess = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly root: string,
    readonly id: string,
  ) {
    this.p = keyspacePrefix(root, id);
  }

  get prefix(): string {
    return this.p;
  }

  async checkpoint(): Promise<string | null> {
    return await this.redis.get(`${this.p}checkpoint`);
  }

  async snapshot(userIds: Iterable<string>): Promise<BatchSnapshot> {
    const ids = [...new Set(userIds)];
    const keys = ['checkpoint', 'main', 'posts', 'uid', 'rows'].map((k) => `${this.p}${k}`);
    const [checkpoint, main, posts, rows] = (await this.script(SNAPSHOT_SCRIPT, SNAPSHOT_SHA, keys.length, [...keys, ...ids])) as [
      string | null,
      string | null,
      string | null,
      Array<string | null>,
    ];
    const users = new Map<string, UserRow>();
    rows.forEach((json, i) => {
      if (json) users.set(ids[i]!, JSON.parse(json) as UserRow);
    });
    return { checkpoint, main: parseJson(main, emptyMain()), users, posts: parseJson(posts, [] as GlobalPostView[]) };
  }

  private async script(script: string, sha: string, numKeys: number, args: Array<string | number>): Promise<unknown> {
    try {
      // One array, not spread: a rebuild's large batches pass more arguments than a call's stack holds.
      return await this.redis.call('EVALSHA', [sha, numKeys, ...args]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await this.redis.call('EVAL', [script, numKeys, ...args]);
    }
  }

  async apply(batch: WriteBatch): Promise<'applied' | 'stale'> {
    const { ops, values } = encodeWrites(batch.writes);
    const args = [`${this.p}checkpoint`, batch.expectedCheckpoint ?? '', batch.checkpoint, this.p, changesChannel(this.root), this.id, ops];
    for (const json of values) args.push(json);
    return (await this.script(APPLY_SCRIPT, APPLY_SHA, 1, args)) === 1 ? 'applied' : 'stale';
  }

  async indexState(): Promise<IndexState> {
    return indexStateAt(this.redis, this.p);
  }

  async *storedRows(): AsyncIterable<UserRow[]> {
    for await (const flat of this.redis.hscanStream(`${this.p}rows`, { count: 2_000 }) as AsyncIterable<string[]>) {
      const rows: UserRow[] = [];
      for (let i = 1; i < flat.length; i += 2) rows.push(JSON.parse(flat[i]!) as UserRow);
      if (rows.length > 0) yield rows;
    }
  }

  async dropIndex(): Promise<void> {
    for await (const keys of scanKeys(this.redis, `${this.p}z:ix:*`)) await unlinkKeys(this.redis, keys, true);
  }

  async main(): Promise<MainRecord> {
    return parseJson(await this.redis.get(`${this.p}main`), emptyMain());
  }

  async countries(limit: number): Promise<CountriesRecord> {
    const [distinct, flat] = (await this.script(COUNTRIES_SCRIPT, COUNTRIES_SHA, 1, [`${this.p}countries`, limit - 1])) as [number, string[]];
    const top: CountriesRecord['top'] = [];
    for (let i = 0; i < flat.length; i += 2) top.push({ country: flat[i]!, users: -Number(flat[i + 1]) });
    return { distinct, top };
  }

  async users(query: UserPageQuery): Promise<UserPage> {
    if (query.email !== undefined) return this.userByEmail(query);
    const users = `${this.p}z:users`;
    const plan = searchPlan(query.sets);
    const masked = query.registrySets ? searchPlan(query.registrySets) : undefined;
    const z = (set: string) => `${this.p}z:${set}`;
    const parts = masked ? [plan, masked] : [plan];
    let target: string;
    if (plan.sets.length <= 1 && !masked) target = z(plan.sets[0] ?? 'users');
    else target = `${this.p}tmp:${createHash('sha1').update(parts.map((part) => part.sets.join('\n')).join('\n|\n')).digest('hex')}`;
    const keys = [users, `${this.p}rows`, target, z(UNPAIRED_SET), `${this.p}${INDEX_MARKER}`, `${target}:w`, `${target}:m`];
    const args: Array<string | number> = [INTERSECTION_TTL_MS, query.membersOnly ? '1' : '0', query.offset, query.offset + query.limit - 1];
    for (const part of parts) {
      keys.push(...part.sets.map(z), ...part.pairs.map(z));
      args.push(part.sets.length, part.pairs.length, ...part.pairWords.flat());
    }
    const [total, rowsJson, ranksJson] = (await this.script(PAGE_SCRIPT, PAGE_SHA, keys.length, [...keys, ...args])) as [number, string, string];
    const rows = JSON.parse(rowsJson) as UserRow[];
    const ranks = JSON.parse(ranksJson) as number[];
    return { total, rows: rows.map((row, i) => ({ rank: ranks[i]! + 1, row })) };
  }

  /** The registry's e-mail search: one hash lookup, then the row if it is in scope. */
  private async userByEmail(query: UserPageQuery): Promise<UserPage> {
    const key = await this.redis.hget(`${this.p}emails`, query.email!);
    if (!key) return { total: 0, rows: [] };
    const res = (await this.redis.multi().zscore(`${this.p}z:users`, key).zrank(`${this.p}z:users`, key).hget(`${this.p}rows`, key).exec()) ?? [];
    for (const [err] of res) if (err) throw err;
    const [score, rank, json] = [res[0]![1] as string | null, res[1]![1] as number | null, res[2]![1] as string | null];
    if (score === null || rank === null || !json || (query.membersOnly && Number(score) >= 0)) return { total: 0, rows: [] };
    return { total: 1, rows: query.offset > 0 ? [] : [{ rank: rank + 1, row: JSON.parse(json) as UserRow }] };
  }

  async userById(userId: string): Promise<UserRow | null> {
    const key = await this.redis.hget(`${this.p}uid`, userId);
    if (!key) return null;
    return parseJson(await this.redis.hget(`${this.p}rows`, key), null as UserRow | null);
  }

  async chat(limit: number): Promise<ChatHistory> {
    const res = (await this.redis.multi().get(`${this.p}main`).lrange(`${this.p}chat`, -limit, -1).exec()) ?? [];
    for (const [err] of res) if (err) throw err;
    const main = parseJson(res[0]![1] as string | null, emptyMain());
    return { total: main.globalMessages, messages: (res[1]![1] as string[]).map((j) => JSON.parse(j) as ChatMessageView) };
  }

  async posts(): Promise<GlobalPostView[]> {
    return parseJson(await this.redis.get(`${this.p}posts`), [] as GlobalPostView[]);
  }

  async dump(): Promise<ReadModelDump> {
    const sets: ReadModelDump['sets'] = {};
    const names: string[] = [];
    for await (const batch of scanKeys(this.redis, `${this.p}z:*`)) names.push(...batch);
    for (const key of names.sort()) {
      const flat = await this.redis.zrange(key, 0, '-1', 'WITHSCORES');
      const entries: Array<[string, number]> = [];
      for (let i = 0; i < flat.length; i += 2) entries.push([flat[i]!, Number(flat[i + 1])]);
      if (entries.length > 0) sets[key.slice(this.p.length + 2)] = entries;
    }
    const rows = Object.values(await this.redis.hgetall(`${this.p}rows`))
      .map((j) => JSON.parse(j) as UserRow)
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    const flatCountries = await this.redis.zrange(`${this.p}countries`, 0, '-1', 'WITHSCORES');
    const countries: Array<[string, number]> = [];
    for (let i = 0; i < flatCountries.length; i += 2) countries.push([flatCountries[i]!, -Number(flatCountries[i + 1])]);
    countries.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const emails = Object.entries(await this.redis.hgetall(`${this.p}emails`)).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return {
      checkpoint: await this.checkpoint(),
      main: await this.main(),
      rows,
      sets,
      emails,
      countries,
      chat: (await this.chat(CHAT_HISTORY_LIMIT)).messages,
      posts: await this.posts(),
    };
  }
}

export interface RedisReadModelsOptions {
  /** A single Redis or a Redis Cluster. */
  redis: RedisConnection;
  /** Key prefix of everything this store writes, e.g. `pass:rm`. */
  root?: string;
  /** How long a reader trusts its cached idea of the active keyspace. */
  activeCacheMs?: number;
}

export function createRedisReadModels(options: RedisReadModelsOptions): ReadModelStore & { readonly root: string } {
  const { redis } = options;
  const root = options.root ?? 'pass:rm';
  const activeKey = `${root}:active`;
  const cacheMs = options.activeCacheMs ?? 250;
  let cached: { id: string; at: number } | null = null;

  const activeId = async () => {
    if (cached && Date.now() - cached.at < cacheMs) return cached.id;
    // First use claims the initial keyspace; SET NX keeps a concurrent instance's choice and GET
    // returns it, in one round trip (NX with GET needs Redis 7, as ZINTERCARD already does).
    const id = (await redis.set(activeKey, INITIAL_KEYSPACE, 'NX', 'GET')) ?? INITIAL_KEYSPACE;
    cached = { id, at: Date.now() };
    return id;
  };
  const keyspace = (id: string) => new RedisKeyspace(redis, root, id);

  return {
    kind: 'redis',
    root,
    activeId,
    active: async () => keyspace(await activeId()),
    keyspace,
    activate: async (id) => {
      await redis.set(activeKey, id);
      cached = { id, at: Date.now() };
    },
    drop: async (id) => {
      if (id === (await redis.get(activeKey))) throw new Error(`Keyspace ${id} is active; activate another one first`);
      // One keyspace is one slot: a single UNLINK per batch even on a cluster.
      for await (const keys of scanKeys(redis, `${keyspacePrefix(root, id)}*`)) await unlinkKeys(redis, keys, true);
    },
    list: async () => {
      const ids = new Set<string>();
      for await (const keys of scanKeys(redis, `${root}:{*}:checkpoint`)) {
        for (const key of keys) ids.add(key.slice(root.length + 2, -'}:checkpoint'.length));
      }
      return [...ids].sort();
    },
    outdated: async (id) => (await indexStateAt(redis, keyspacePrefix(root, id))) === 'outdated',
    close: async () => {},
  };
}
