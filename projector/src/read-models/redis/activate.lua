-- Points readers at a keyspace, for a fenced writer only while its lease epoch is the current one
-- (fencing.ts: the lease's keys share `active`'s hash slot). KEYS: active, the lease hash.
-- ARGV: keyspace id, the writer's epoch. Returns 1, or 0 when a newer leader holds the lease.
local epoch = redis.call('HGET', KEYS[2], 'epoch')
if epoch ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
