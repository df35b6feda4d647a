return { redis.call('ZCARD', KEYS[1]), redis.call('ZRANGE', KEYS[1], 0, ARGV[1], 'WITHSCORES') }
