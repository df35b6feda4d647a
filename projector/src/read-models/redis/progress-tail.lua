-- The last progress day and the number of days stored, in one round trip.
-- KEYS: progress:last (the latest day's date), progress (date -> day JSON).
local last = redis.call('GET', KEYS[1])
if last then last = redis.call('HGET', KEYS[2], last) end
return { last, redis.call('HLEN', KEYS[2]) }
