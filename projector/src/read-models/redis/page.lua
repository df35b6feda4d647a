-- One page of `users` or of a search (user-pages.ts). A query without two words of different
-- starts (a word and a date), one a row in the unpaired set matches, and any query on a keyspace
-- without the index marker intersect their sets directly, so results never depend on which index
-- answered. KEYS: users, rows, the set to page (or the result's cache key), the unpaired set, the
-- index marker, two scratch keys, then the query's sets (n of them) and its pair sets, then those
-- of the registry's masked e-mail sets if any. ARGV: ttl ms, members-only flag, first rank, last
-- rank, then per part n, the number of pair sets, and the two 0-based set indexes of each pair set
-- (-1: a word the pair set does not stand for). Returns the total, the page's rows as one JSON
-- array and their 0-based ranks as another: one bulk string and one JSON.parse for the reader,
-- not a reply per row.
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
