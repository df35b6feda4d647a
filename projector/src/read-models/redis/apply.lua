-- Stores a batch and its checkpoint if the keyspace still holds the expected one (batches.ts).
-- KEYS: the checkpoint. ARGV: expected checkpoint, new checkpoint, key prefix, changes channel,
-- keyspace id, the writer's fencing epoch ('' when unfenced), the writes (one JSON array of
-- strings, encodeWrites), then the JSON values the writes store (rows, figures, posts, chat
-- lines), each its own argument, named by number.
-- A fenced writer (a projector leading by lease, projector/src/leadership) whose epoch is below
-- the keyspace's fence was replaced by a newer leader: it writes nothing (-1). A newer epoch
-- raises the fence, so from its first batch on an older leader cannot write here.
if ARGV[6] ~= '' then
  local fence = tonumber(redis.call('GET', ARGV[3] .. 'fence') or '0')
  local epoch = tonumber(ARGV[6])
  if epoch < fence then return -1 end
  if epoch > fence then redis.call('SET', ARGV[3] .. 'fence', ARGV[6]) end
end
local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return 0 end
-- The writes come as one JSON array of strings (encodeWrites): millions of separate arguments
-- cost the client more to send than the script spends on them. The JSON values they store come
-- as arguments of their own (ARGV[7 + n] for value n): escaped inside that array, they cost the
-- client and this decoder more than all the rest of it. (docs/benchmarks/history/rebuild.md,
-- "A batch's Redis writes sent as one JSON array".)
local w = cjson.decode(ARGV[7])
local function value(n)
  return ARGV[7 + tonumber(n)]
end
local arity = { S = 3, U = 4, Z = 4, R = 3, C = 3, L = 3, D = 2, E = 3, Y = 4, X = 2, I = 2, P = 3, T = 3 }
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
-- A keyspace's first batch: it is projected from its start by this code (keys.ts, PROGRESS_MARKER, TEXT_MARKER).
if cur == '' then
  redis.call('SET', p .. '{{PROGRESS_MARKER}}', '1')
  -- Its value names this projection of the keyspace: a reader seeing another one loads anew.
  local now = redis.call('TIME')
  redis.call('SET', p .. '{{TEXT_MARKER}}', now[1] .. '.' .. now[2])
end
-- Rows, e-mails and single scores wait in lists and go out as one HSET or ZADD per key (in
-- slices), not one call each: every call has a cost of its own. What waits is sent before any op
-- that reads or removes the same keys, and the last of two values for one field or member still
-- wins, so the outcome is the writes' order. (docs/benchmarks/history/rebuild.md, "A batch's
-- rows, e-mails and scores stored one call per key".)
local rowsKey, uidKey, emailsKey = p .. 'rows', p .. 'uid', p .. 'emails'
local rowArgs, uidArgs, emailArgs = {}, {}, {}
local scoreArgs = {}
-- The batch's changes to the rows' search records and to `users`' scores, in order, as field and
-- value pairs of one text log entry ('t' or 's' then the rank key; '' for gone): readers' text
-- indexes follow them (text-mirror.ts).
local textLog = {}
local function logText(kind, key, v)
  textLog[#textLog + 1] = kind .. key
  textLog[#textLog + 1] = v
end
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
-- Search records wait like rows and go out as one HSET per slice; an erasure sends them first.
local textKey, textArgs = p .. 'text', {}
local function flushText()
  if #textArgs > 0 then
    sendAll('HSET', textKey, textArgs)
    textArgs = {}
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
    if set == 'users' then logText('s', w[i + 3], w[i + 2]) end
  elseif op == 'M' then
    flushScores(w[i + 1])
    sendRange('ZADD', p .. 'z:' .. w[i + 1], w, i + 3, i + 2 + 2 * tonumber(w[i + 2]))
    if w[i + 1] == 'users' then
      for j = i + 3, i + 2 + 2 * tonumber(w[i + 2]), 2 do logText('s', w[j + 1], w[j]) end
    end
  elseif op == 'T' then
    local record = value(w[i + 2])
    if record == '' then
      flushText()
      redis.call('HDEL', textKey, w[i + 1])
    else
      textArgs[#textArgs + 1] = w[i + 1]
      textArgs[#textArgs + 1] = record
    end
    logText('t', w[i + 1], record)
  elseif op == 'I' then
    if w[i + 1] == 'complete' then
      redis.call('SET', p .. '{{INDEX_MARKER}}', '1')
      redis.call('DEL', p .. '{{INDEX_DEFERRED}}')
    else
      redis.call('SET', p .. '{{INDEX_DEFERRED}}', '1')
    end
  elseif op == 'E' then
    local e = #emailArgs
    emailArgs[e + 1] = w[i + 1]
    emailArgs[e + 2] = w[i + 2]
  elseif op == 'R' then
    flushScores(w[i + 1])
    redis.call('ZREM', p .. 'z:' .. w[i + 1], w[i + 2])
    if w[i + 1] == 'users' then logText('s', w[i + 2], '') end
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
    flushText()
    redis.call('DEL', p .. w[i + 1])
  elseif op == 'Y' then
    flushHashes()
    redis.call('HDEL', rowsKey, w[i + 1])
    if redis.call('HGET', uidKey, w[i + 2]) == w[i + 1] then redis.call('HDEL', uidKey, w[i + 2]) end
    if w[i + 3] ~= '' and redis.call('HGET', emailsKey, w[i + 3]) == w[i + 1] then redis.call('HDEL', emailsKey, w[i + 3]) end
  elseif op == 'P' then
    -- A progress day (date, value); `progress:last` names the latest day stored.
    redis.call('HSET', p .. 'progress', w[i + 1], value(w[i + 2]))
    local last = redis.call('GET', p .. 'progress:last')
    if last == false or w[i + 1] > last then redis.call('SET', p .. 'progress:last', w[i + 1]) end
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
flushText()
-- `text:head` names the newest entry and `text:added` counts them all, so a reader learns
-- whether it is behind, or further behind than the log keeps, in one MGET.
if #textLog > 0 then
  local id
  local entries = 0
  for j = 1, #textLog, 4000 do
    id = redis.call('XADD', p .. 'text:log', 'MAXLEN', '~', {{TEXT_LOG_ENTRIES}}, '*', unpack(textLog, j, math.min(j + 3999, #textLog)))
    entries = entries + 1
  end
  redis.call('SET', p .. 'text:head', id)
  redis.call('INCRBY', p .. 'text:added', entries)
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
