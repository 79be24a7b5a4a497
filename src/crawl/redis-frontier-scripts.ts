// The fleet frontier's Lua scripts, one per operation, each atomic fleet-wide and idempotent on
// its token (the key layout they work on is described in redis-frontier.ts). Kept apart from the
// class that calls them: the scripts are the frontier's rules, the class only its transport.
import type { RedisConnection } from '../stores/redis-connection.js';

// Shared Lua: clock, host interval, host readiness. Globals used: R, L (prefixes), floorMs, ovMs.
const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function interval(host)
  local p = redis.call('HMGET', R .. 'hp:' .. host, 'cd', 'ov', 'jf')
  local ms, why = floorMs * (tonumber(p[3]) or 1), 'floor'
  local cd = tonumber(p[1])
  if cd and cd > ms then ms, why = cd, 'crawl-delay' end
  if p[2] == '1' and ovMs > ms then ms, why = ovMs, 'override' end
  return math.ceil(ms), why
end
-- The interval the host's last lease was granted under (what its holder knew, which may be more
-- than this run knows: another run, a gate on the limiter): the next request waits it too.
local function held(host)
  return tonumber(redis.call('HGET', L .. 'lim:' .. host, 'iv')) or 0
end
-- A requeue's hold (release's holdMs, see FailOptions.holdUntil): the frontier offers the host
-- no earlier. No interval: a take does not report it.
local function hold(host)
  return tonumber(redis.call('HGET', R .. 'hp:' .. host, 'hold')) or 0
end
-- When the host may next be sent: returns readyAt, inFlight, ended (nil before any response).
local function readiness(host)
  local h = redis.call('HMGET', L .. 'lim:' .. host, 'token', 'until', 'ended', 'nb', 'iv')
  local untilAt, ended, nb = tonumber(h[2]), tonumber(h[3]), tonumber(h[4]) or 0
  if h[1] and untilAt then
    if untilAt > now then return untilAt, true, ended end
    -- its holder died: the lease's end counts as the response's end
    if not ended or untilAt > ended then ended = untilAt end
  end
  local ready = nb
  if ended then ready = math.max(ended + math.max(interval(host), tonumber(h[5]) or 0), nb) end
  local hd = hold(host)
  if hd > ready then ready = hd end
  return ready, false, ended
end
`;

// ARGV: R, L, floorMs, ovMs, then url, host pairs. Returns how many were new.
const ADD = `
local R, L, floorMs, ovMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
${COMMON}
local added = 0
for i = 5, #ARGV, 2 do
  local url, host = ARGV[i], ARGV[i + 1]
  if redis.call('SADD', R .. 'seen', url) == 1 then
    redis.call('RPUSH', R .. 'q:' .. host, url)
    added = added + 1
    local ready, busy = readiness(host)
    local holder = redis.call('HGET', L .. 'lim:' .. host, 'token')
    -- A host in flight through this frontier comes back to 'ready' when released.
    if not (busy and holder and redis.call('HEXISTS', R .. 'leased', holder) == 1) then
      redis.call('ZADD', R .. 'ready', 'NX', ready, host)
    end
  end
end
if added > 0 then redis.call('HINCRBY', R .. 'counts', 'queued', added) end
return added
`;

// ARGV: R, L, floorMs, ovMs, token, leaseMs, pollMs, keepMs, worker, expectRun (0/1).
// Returns {'item', json} | {'wait', ms} | {'drained'} | {'gone'}.
const TAKE = `
local R, L, floorMs, ovMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local token, leaseMs, pollMs, keepMs = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
${COMMON}
-- The same take sent twice: the same answer.
local mine = redis.call('HGET', R .. 'leased', token)
if mine then return {'item', mine} end
-- This worker added URLs, yet the run has vanished: Redis lost its data (restarted without
-- persistence, flushed, evicted). Finishing as 'drained' would hide the loss.
if ARGV[10] == '1' and redis.call('EXISTS', R .. 'seen') == 0 then return {'gone'} end

-- URLs of dead workers go back to the head of their queues.
local lapsed = redis.call('ZRANGEBYSCORE', R .. 'leases', '-inf', now, 'LIMIT', 0, 100)
for _, tok in ipairs(lapsed) do
  local j = redis.call('HGET', R .. 'leased', tok)
  if j then
    local it = cjson.decode(j)
    redis.call('LPUSH', R .. 'q:' .. it.host, it.url)
    if it.attempt > 1 then redis.call('HSET', R .. 'att', it.url, it.attempt) end
    redis.call('HDEL', R .. 'leased', tok)
    redis.call('HINCRBY', R .. 'counts', 'queued', 1)
    redis.call('HINCRBY', R .. 'counts', 'inflight', -1)
    redis.call('ZADD', R .. 'ready', now, it.host)
  end
  redis.call('ZREM', R .. 'leases', tok)
end

for _ = 1, 16 do
  local top = redis.call('ZRANGE', R .. 'ready', 0, 0, 'WITHSCORES')
  if #top == 0 then break end
  local host, score = top[1], tonumber(top[2])
  if score > now then return {'wait', score - now} end
  local ready, busy, ended = readiness(host)
  if ready > now then
    -- Not open yet after all (a policy learned since, or in flight by a limiter user):
    -- put it where it belongs and look at the next host.
    if busy then ready = math.min(ready, now + pollMs) end
    redis.call('ZADD', R .. 'ready', ready, host)
  else
    local url = redis.call('LPOP', R .. 'q:' .. host)
    if not url then
      redis.call('ZREM', R .. 'ready', host)
    else
      local attempt = tonumber(redis.call('HGET', R .. 'att', url)) or 1
      redis.call('HDEL', R .. 'att', url)
      local item = {url = url, host = host, attempt = attempt, worker = ARGV[9]}
      -- What this run knows of the host: the lease is granted under it (the limiter's 'iv').
      local iv, why = interval(host)
      if ended then
        local gap = math.max(iv, held(host))
        local nb = tonumber(redis.call('HGET', L .. 'lim:' .. host, 'nb')) or 0
        if nb > ended + gap then item.iv, item.why = nb - ended, 'backoff' else item.iv, item.why = gap, why end
      end
      local lim = L .. 'lim:' .. host
      if ended then redis.call('HSET', lim, 'ended', ended) end
      redis.call('HDEL', lim, 'sub', 'subuntil')
      redis.call('HSET', lim, 'token', token, 'until', now + leaseMs, 'granted', now, 'iv', iv)
      redis.call('PEXPIRE', lim, leaseMs + iv + keepMs)
      redis.call('ZREM', R .. 'ready', host)
      local json = cjson.encode(item)
      redis.call('HSET', R .. 'leased', token, json)
      redis.call('ZADD', R .. 'leases', now + leaseMs, token)
      redis.call('HINCRBY', R .. 'counts', 'queued', -1)
      redis.call('HINCRBY', R .. 'counts', 'inflight', 1)
      return {'item', json}
    end
  end
end

local c = redis.call('HMGET', R .. 'counts', 'queued', 'inflight')
if (tonumber(c[1]) or 0) <= 0 and (tonumber(c[2]) or 0) <= 0 then return {'drained'} end
local top = redis.call('ZRANGE', R .. 'ready', 0, 0, 'WITHSCORES')
if #top > 0 and tonumber(top[2]) > now then return {'wait', math.min(tonumber(top[2]) - now, pollMs * 10)} end
-- Everything queued is in flight elsewhere (or its worker is dying): look again soon.
return {'wait', pollMs}
`;

// ARGV: R, L, floorMs, ovMs, token, ageMs, backoffMs (-1 none), retry (0 done, 1 retry with
// attempt + 1, 2 requeue with the same attempt), jitter factor, notSent (0/1), keepMs, holdMs
// (-1 none: see FailOptions.holdUntil). Returns 1, or 0 when the lease had lapsed and its URL
// gone back.
const RELEASE = `
local R, L, floorMs, ovMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local token = ARGV[5]
${COMMON}
local j = redis.call('HGET', R .. 'leased', token)
if not j then return 0 end
local it = cjson.decode(j)
local host = it.host
local lim = L .. 'lim:' .. host
local h = redis.call('HMGET', lim, 'token', 'granted', 'nb', 'ended')
if h[1] == token then
  local nb = tonumber(h[3]) or 0
  local backoff = tonumber(ARGV[7])
  if backoff >= 0 and now + backoff > nb then nb = now + backoff end
  redis.call('HDEL', lim, 'token', 'until', 'granted', 'sub', 'subuntil')
  redis.call('HSET', lim, 'nb', nb)
  if ARGV[10] ~= '1' then
    -- The worker measured the age before sending this, so 'now - age' is never before the
    -- response really ended (in Redis's clock).
    local ended = now - math.max(0, tonumber(ARGV[6]))
    local granted = tonumber(h[2]) or ended
    if ended < granted then ended = granted end
    -- Requests sent under this lease (robots.txt, the page) moved 'ended' already: never back.
    local known = tonumber(h[4]) or 0
    if ended < known then ended = known end
    redis.call('HSET', lim, 'ended', ended)
    redis.call('HSET', R .. 'hp:' .. host, 'jf', ARGV[9])
  end
  local iv = math.max(interval(host), held(host))
  local ended = tonumber(redis.call('HGET', lim, 'ended')) or now
  redis.call('PEXPIRE', lim, math.max(1, math.max(ended + iv, nb) - now + tonumber(ARGV[11])))
end
redis.call('HDEL', R .. 'leased', token)
redis.call('ZREM', R .. 'leases', token)
redis.call('HINCRBY', R .. 'counts', 'inflight', -1)
local holdMs = tonumber(ARGV[12])
if holdMs >= 0 and now + holdMs > hold(host) then
  redis.call('HSET', R .. 'hp:' .. host, 'hold', now + holdMs)
end
if ARGV[8] == '1' then
  redis.call('LPUSH', R .. 'q:' .. host, it.url)
  redis.call('HSET', R .. 'att', it.url, it.attempt + 1)
  redis.call('HINCRBY', R .. 'counts', 'queued', 1)
elseif ARGV[8] == '2' then
  -- Not tried, only handed back: the same attempt (take dropped its 'att' entry).
  redis.call('LPUSH', R .. 'q:' .. host, it.url)
  if it.attempt > 1 then redis.call('HSET', R .. 'att', it.url, it.attempt) end
  redis.call('HINCRBY', R .. 'counts', 'queued', 1)
else
  redis.call('HINCRBY', R .. 'counts', 'done', 1)
end
if redis.call('LLEN', R .. 'q:' .. host) > 0 then
  local ready = readiness(host)
  redis.call('ZADD', R .. 'ready', ready, host)
end
return 1
`;

// ARGV: R, L, leaseMs, keepMs, tokens... Returns the tokens no longer leased (lapsed).
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local R, L, leaseMs, keepMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local lost = {}
for i = 5, #ARGV do
  local tok = ARGV[i]
  local j = redis.call('HGET', R .. 'leased', tok)
  if j then
    redis.call('ZADD', R .. 'leases', 'XX', now + leaseMs, tok)
    local lim = L .. 'lim:' .. cjson.decode(j).host
    if redis.call('HGET', lim, 'token') == tok then
      redis.call('HSET', lim, 'until', now + leaseMs)
      redis.call('PEXPIRE', lim, leaseMs + keepMs)
    end
  else
    lost[#lost + 1] = tok
  end
end
return lost
`;

// ARGV: R, L, floorMs, ovMs, host, crawl-delay ms ('' none), override (0/1).
const POLICY = `
local R, L, floorMs, ovMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
${COMMON}
local host = ARGV[5]
local hp = R .. 'hp:' .. host
if ARGV[6] == '' then redis.call('HDEL', hp, 'cd') else redis.call('HSET', hp, 'cd', ARGV[6]) end
redis.call('HSET', hp, 'ov', ARGV[7])
if redis.call('ZSCORE', R .. 'ready', host) then
  local ready = readiness(host)
  redis.call('ZADD', R .. 'ready', ready, host)
end
return 1
`;

// ARGV: R, host, urls... Returns how many were removed from the queue.
const REMOVE = `
local R, host = ARGV[1], ARGV[2]
local removed = 0
for i = 3, #ARGV do
  local n = redis.call('LREM', R .. 'q:' .. host, 1, ARGV[i])
  if n > 0 then
    removed = removed + n
    redis.call('HDEL', R .. 'att', ARGV[i])
  end
end
if removed > 0 then
  redis.call('HINCRBY', R .. 'counts', 'queued', -removed)
  redis.call('HINCRBY', R .. 'counts', 'done', removed)
end
if redis.call('LLEN', R .. 'q:' .. host) == 0 then redis.call('ZREM', R .. 'ready', host) end
return removed
`;

export interface FrontierScripts {
  rgFrAdd(...args: (string | number)[]): Promise<number>;
  rgFrTake(...args: (string | number)[]): Promise<[string, (string | number)?]>;
  rgFrRelease(...args: (string | number)[]): Promise<number>;
  rgFrRenew(...args: (string | number)[]): Promise<string[]>;
  rgFrPolicy(...args: (string | number)[]): Promise<number>;
  rgFrRemove(...args: (string | number)[]): Promise<number>;
}

/** Define the scripts on the frontier's connection: its commands `rgFr*` run them. */
export function defineFrontierScripts(conn: RedisConnection): FrontierScripts {
  const c = conn.client;
  c.defineCommand('rgFrAdd', { numberOfKeys: 0, lua: ADD });
  c.defineCommand('rgFrTake', { numberOfKeys: 0, lua: TAKE });
  c.defineCommand('rgFrRelease', { numberOfKeys: 0, lua: RELEASE });
  c.defineCommand('rgFrRenew', { numberOfKeys: 0, lua: RENEW });
  c.defineCommand('rgFrPolicy', { numberOfKeys: 0, lua: POLICY });
  c.defineCommand('rgFrRemove', { numberOfKeys: 0, lua: REMOVE });
  return c as unknown as FrontierScripts;
}
