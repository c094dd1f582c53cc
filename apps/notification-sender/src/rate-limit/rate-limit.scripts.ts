/**
 * Lua run atomically by Redis, so every sender replica sees one bucket per credential. Time is the
 * server's (TIME), never a replica's clock. Times are milliseconds (floats), rates tokens per second.
 *
 * Credential hash fields: rate (current AIMD rate), ceil, floor (last bounds given), tok, ts (shared
 * bucket), pd, pdx (unmet priority demand and until when it holds bulk back), and the AIMD window:
 * ver (bumped by every applied decision), ws (window start), ld (last decrease), g (tokens granted),
 * ac, cg, e5, to (accepted, congested, 5xx, timeouts reported).
 */

/**
 * One acquire: refills the shared bucket, the campaign's share and the tenant's bucket, grants up to
 * `want` tokens from all of them at once, and says when asking again is worthwhile.
 *
 * KEYS: 1 credential hash, 2 active bulk campaigns (zset: campaign -> last ask), 3 campaign shares
 * (hash: t:<campaign> tokens, s:<campaign> last refill, w:<campaign> weight), 4 tenant bucket (hash:
 * tok, ts).
 * ARGV: 1 lane (bulk|priority), 2 campaign id, 3 want, 4 ceiling, 5 floor, 6 initial rate, 7 burst ms,
 * 8 active window ms, 9 priority hold ms, 10 max retry ms, 11 ttl ms, 12 tenant cap per s (0: none),
 * 13 ahead ms, 14 the campaign's weight (its priority, 1..10; bulk lane; absent or invalid: 1).
 * Returns {granted, retryAfterMs, rate (string), server time ms, active bulk campaigns, fresh, shared
 * start ms (string), tenant start ms (string)}: fresh is 1 when the credential had no hash (new, expired, or lost with a Redis restart) and this call
 * created it at the initial rate given (ARGV 6), with a full bucket and a new AIMD window.
 *
 * Reservations: a bucket may go into debt by up to `ahead` ms of its rate. Tokens granted on debt are
 * for slots in the future: the shared and the tenant start ms say when each bucket is out of debt
 * again, which is the slot of the grant's last token; the token k places before it has its slot k
 * tokens' time earlier (never before the grant). A caller sends each token no earlier than its slot, so
 * what reaches the provider in any second stays within rate x (1 + burst), counted at the slots. The
 * caller asks for its next tokens while its last ones wait for their slots, so a bucket never stands
 * full (losing its refill) while callers are between two calls: a busy caller's round trip and timer
 * lag cost no rate.
 *
 * Fairness: each active bulk campaign has its own bucket refilled at rate x weight / (sum of the
 * active campaigns' weights): weights 2 and 1 split the credential two thirds and one third, equal
 * weights evenly. A bulk grant takes from both. Each ask records the campaign's weight (w:<campaign>,
 * which leaves with the campaign when it goes idle), so a changed priority counts from the campaign's
 * next ask. When the shared bucket is full nobody else is using it, so a campaign may borrow beyond
 * its share (idle shares are not wasted). Priority grants take from the shared bucket only and are
 * charged to the active campaigns' shares by weight, so the bulk that remains keeps the same split.
 * An unmet priority demand reserves up to one bucket of tokens against bulk for the hold time.
 */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local lane = ARGV[1]
local cid = ARGV[2]
local want = tonumber(ARGV[3])
local ceil = tonumber(ARGV[4])
local flo = tonumber(ARGV[5])
local burstMs = tonumber(ARGV[7])
local windowMs = tonumber(ARGV[8])
local holdMs = tonumber(ARGV[9])
local maxRetry = tonumber(ARGV[10])
local ttl = tonumber(ARGV[11])
local tcap = tonumber(ARGV[12])
local aheadMs = tonumber(ARGV[13])
local weight = tonumber(ARGV[14]) or 1
if weight < 1 then weight = 1 end

-- The active campaigns (zset KEYS[2]), each one's weight (absent: 1) and their sum, from one HMGET per
-- 500 campaigns (unpack's stack stays small however many are active). Summed on each ask rather than
-- kept as a running total, which expiry and a half-rolled-out deployment could leave wrong: a credential
-- has few campaigns active within one second, and the read is one command.
local function weights()
  local members = redis.call('ZRANGE', KEYS[2], 0, -1)
  local byMember = {}
  local total = 0
  for i = 1, #members, 500 do
    local fields = {}
    for j = i, math.min(i + 499, #members) do fields[#fields + 1] = 'w:' .. members[j] end
    local values = redis.call('HMGET', KEYS[3], unpack(fields))
    for j = 1, #values do
      local w = tonumber(values[j]) or 1
      byMember[i + j - 1] = w
      total = total + w
    end
  end
  return members, byMember, total
end

local c = redis.call('HMGET', KEYS[1], 'rate', 'tok', 'ts', 'pd', 'pdx')
local fresh = c[1] == false
local rate = tonumber(c[1]) or tonumber(ARGV[6])
rate = math.min(ceil, math.max(flo, rate))
local burst = math.max(1, rate * burstMs / 1000)
local ahead = rate * aheadMs / 1000
local tok = tonumber(c[2]) or burst
local ts = tonumber(c[3]) or now
tok = math.min(burst, tok + rate * math.max(0, now - ts) / 1000)
local pd = 0
local pdx = 0
if c[5] and tonumber(c[5]) > now then
  pd = tonumber(c[4])
  pdx = tonumber(c[5])
end

local ttok = math.huge
local tburst = 0
local tahead = 0
if tcap > 0 then
  tburst = math.max(1, tcap * burstMs / 1000)
  tahead = tcap * aheadMs / 1000
  local tv = redis.call('HMGET', KEYS[4], 'tok', 'ts')
  ttok = tonumber(tv[1]) or tburst
  ttok = math.min(tburst, ttok + tcap * math.max(0, now - (tonumber(tv[2]) or now)) / 1000)
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - windowMs))
for i = 1, #expired do
  redis.call('ZREM', KEYS[2], expired[i])
  redis.call('HDEL', KEYS[3], 't:' .. expired[i], 's:' .. expired[i], 'w:' .. expired[i])
end

local avail
local active
local ctok = nil
local share = 0
local cahead = 0
if lane == 'bulk' then
  redis.call('ZADD', KEYS[2], now, cid)
  redis.call('HSET', KEYS[3], 'w:' .. cid, weight)
  active = redis.call('ZCARD', KEYS[2])
  avail = tok + ahead - pd
  if active > 1 then
    local _, _, total = weights()
    share = rate * weight / total
    cahead = share * aheadMs / 1000
    local cv = redis.call('HMGET', KEYS[3], 't:' .. cid, 's:' .. cid)
    ctok = tonumber(cv[1]) or burst
    ctok = math.min(burst, ctok + share * math.max(0, now - (tonumber(cv[2]) or now)) / 1000)
    if tok < burst then
      avail = math.min(avail, ctok + cahead)
    end
  end
else
  active = redis.call('ZCARD', KEYS[2])
  avail = tok + ahead
end

local granted = math.floor(math.max(0, math.min(want, avail, ttok + tahead)))
tok = tok - granted

if lane == 'bulk' then
  if ctok ~= nil then
    ctok = math.max(math.min(ctok, 0) - cahead, ctok - granted)
    redis.call('HSET', KEYS[3], 't:' .. cid, ctok, 's:' .. cid, now)
  end
else
  if granted > 0 and active > 1 then
    local members, byMember, total = weights()
    for i = 1, #members do
      local v = tonumber(redis.call('HGET', KEYS[3], 't:' .. members[i])) or burst
      redis.call('HSET', KEYS[3], 't:' .. members[i], math.max(-burst, v - granted * byMember[i] / total))
    end
  end
  if granted < want then
    pd = math.min(burst, math.max(pd, want - granted))
    pdx = now + holdMs
  else
    pd = math.max(0, pd - granted)
  end
  redis.call('HSET', KEYS[1], 'pd', pd, 'pdx', pdx)
end

if tcap > 0 then
  redis.call('HSET', KEYS[4], 'tok', ttok - granted, 'ts', now)
  redis.call('PEXPIRE', KEYS[4], ttl)
end

local retry = 0
if granted < want then
  -- Half of what can be reserved: grants stay large (one claim each) however busy the callers are.
  local need = math.min(want - granted, math.max(1, math.floor((burst + ahead) / 2)))
  local reserve = 0
  if lane == 'bulk' then reserve = pd end
  local w = (math.min(burst, need + reserve - ahead) - tok) / rate * 1000
  if ctok ~= nil then
    local wOwn = (math.min(burst, need - cahead) - ctok) / share * 1000
    local wFull = (burst - tok) / rate * 1000
    w = math.max(w, math.min(wOwn, wFull))
  end
  if tcap > 0 then
    local tneed = math.min(need, math.max(1, math.floor((tburst + tahead) / 2)))
    w = math.max(w, (math.min(tburst, tneed - tahead) - (ttok - granted)) / tcap * 1000)
  end
  retry = math.min(maxRetry, math.max(1, math.ceil(w)))
end

redis.call('HSET', KEYS[1], 'tok', tok, 'ts', now, 'rate', rate, 'ceil', ceil, 'floor', flo)
if fresh then
  redis.call('HSET', KEYS[1], 'ver', 0, 'ws', now, 'ld', 0)
end
if granted > 0 then
  redis.call('HINCRBY', KEYS[1], 'g', granted)
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
local created = 0
if fresh then created = 1 end
local tstartIn = 0
if tcap > 0 then tstartIn = math.max(0, -(ttok - granted)) / tcap * 1000 end
return {granted, retry, tostring(rate), math.floor(now), active, created,
  tostring(math.max(0, -tok) / rate * 1000), tostring(tstartIn)}
`;

/**
 * Adds a batch's outcomes to the credential's AIMD window and returns the window with the server
 * time, for the service to decide on (libs/domain decideAimd). Nothing is created for a credential
 * that has no bucket (expired, or never acquired).
 *
 * KEYS: 1 credential hash. ARGV: accepted, congested, errors5xx, timeouts.
 * Returns nil, or {now ms, rate, ceil, floor, ver, ws, ld, g, ac, cg, e5, to} as strings.
 */
export const REPORT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local names = {'ac', 'cg', 'e5', 'to'}
for i = 1, 4 do
  local n = tonumber(ARGV[i])
  if n > 0 then
    redis.call('HINCRBY', KEYS[1], names[i], n)
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('HMGET', KEYS[1], 'rate', 'ceil', 'floor', 'ver', 'ws', 'ld', 'g', 'ac', 'cg', 'e5', 'to')
return {tostring(now), v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]}
`;

/**
 * Applies one AIMD decision if nobody applied another since the window was read (compare-and-set
 * on ver): sets the rate, starts a new window (ws, and ld on a decrease) and takes the signals the
 * decision used out of the counters (signals that arrived meanwhile stay for the next window).
 *
 * KEYS: 1 credential hash. ARGV: 1 ver read, 2 new rate, 3 decreased (1|0), 4-8 g, ac, cg, e5, to read.
 * Returns 1 when applied, 0 when another replica was first.
 */
export const APPLY_AIMD_SCRIPT = `
if redis.call('HGET', KEYS[1], 'ver') ~= ARGV[1] then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
redis.call('HSET', KEYS[1], 'rate', ARGV[2], 'ws', now, 'ver', tonumber(ARGV[1]) + 1)
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'ld', now)
end
local names = {'g', 'ac', 'cg', 'e5', 'to'}
for i = 1, 5 do
  local n = tonumber(ARGV[3 + i])
  if n > 0 then
    redis.call('HINCRBY', KEYS[1], names[i], -n)
  end
end
return 1
`;

/**
 * Gives back tokens granted but not spent (a grant that went stale before its messages could go,
 * whose messages take a fresh grant): to the shared bucket, the campaign's share and the tenant's
 * bucket, each refilled to now first and capped at its depth. What went back was never sent, so
 * what reaches the provider in any second stays within rate x (1 + burst). The AIMD window's granted
 * count is left alone (the compare-and-set subtracts what it read).
 *
 * KEYS: 1 credential hash, 2 campaign shares (hash), 3 tenant bucket (hash).
 * ARGV: 1 lane (bulk|priority), 2 campaign id, 3 count, 4 burst ms, 5 tenant cap per s (0: none).
 * Returns the tokens now in the shared bucket (as a string).
 */
export const GIVE_BACK_SCRIPT = `
local c = redis.call('HMGET', KEYS[1], 'rate', 'tok', 'ts')
if c[1] == false then return '0' end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = tonumber(ARGV[3])
local burstMs = tonumber(ARGV[4])
local tcap = tonumber(ARGV[5])
local rate = tonumber(c[1])
local burst = math.max(1, rate * burstMs / 1000)
local tok = tonumber(c[2]) or burst
local ts = tonumber(c[3]) or now
tok = math.min(burst, tok + rate * math.max(0, now - ts) / 1000 + n)
redis.call('HSET', KEYS[1], 'tok', tok, 'ts', now)
if ARGV[1] == 'bulk' then
  local v = tonumber(redis.call('HGET', KEYS[2], 't:' .. ARGV[2]))
  if v ~= nil then redis.call('HSET', KEYS[2], 't:' .. ARGV[2], math.min(burst, v + n)) end
end
if tcap > 0 then
  local tv = tonumber(redis.call('HGET', KEYS[3], 'tok'))
  if tv ~= nil then redis.call('HSET', KEYS[3], 'tok', math.min(math.max(1, tcap * burstMs / 1000), tv + n)) end
end
return tostring(tok)
`;
