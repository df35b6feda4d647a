-- Raises a keyspace's fence to a new leader's epoch before it reads or writes there (fencing.ts),
-- so a batch of the leader it replaces, still in flight, is refused. Never lowers it.
-- KEYS: the keyspace's fence. ARGV: the epoch. Returns the fence as it now is.
local fence = tonumber(redis.call('GET', KEYS[1]) or '0')
local epoch = tonumber(ARGV[1])
if epoch > fence then
  redis.call('SET', KEYS[1], ARGV[1])
  return epoch
end
return fence
