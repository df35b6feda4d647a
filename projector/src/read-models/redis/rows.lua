-- The rows of a page the text index found (user-pages.ts), with their ranks in one round trip.
-- KEYS: users, rows. ARGV: the rows' rank keys, in page order. Returns the rows found as one JSON
-- array and their 0-based ranks in `users` as another (a row erased since is left out).
local json = redis.call('HMGET', KEYS[2], unpack(ARGV))
local rows, ranks = {}, {}
for i, k in ipairs(ARGV) do
  local rank = redis.call('ZRANK', KEYS[1], k)
  if json[i] and rank then
    rows[#rows + 1] = json[i]
    ranks[#ranks + 1] = rank
  end
end
return { '[' .. table.concat(rows, ',') .. ']', '[' .. table.concat(ranks, ',') .. ']' }
