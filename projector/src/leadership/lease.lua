-- The projectors' lease (lease.ts): taken when free, renewed by its holder, released by it.
-- KEYS: the lease hash (holder, epoch), the epoch counter. ARGV: instance, time to live (ms),
-- 'renew' or 'release'. Returns { held: 1 or 0, holder or '', epoch or 0, ms left }.
-- Redis's own expiry ends a lease: no machine's clock is compared with another's.
local holder = redis.call('HGET', KEYS[1], 'holder')
if ARGV[3] == 'release' then
  if holder == ARGV[1] then redis.call('DEL', KEYS[1]) end
  return { 0, '', 0, 0 }
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return { 1, holder, tonumber(redis.call('HGET', KEYS[1], 'epoch')), tonumber(ARGV[2]) }
end
if holder then
  return { 0, holder, tonumber(redis.call('HGET', KEYS[1], 'epoch')), redis.call('PTTL', KEYS[1]) }
end
-- Free: a new epoch, higher than every earlier holder's, fences what they may still send.
local epoch = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'epoch', epoch)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return { 1, ARGV[1], epoch, tonumber(ARGV[2]) }
