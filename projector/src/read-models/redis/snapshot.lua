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
local lastDay = redis.call('GET', KEYS[6])
if lastDay then lastDay = redis.call('HGET', KEYS[7], lastDay) end
return { redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3]), rows, lastDay }
