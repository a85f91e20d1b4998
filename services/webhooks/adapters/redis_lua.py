"""The Lua scripts of the Redis `WebhookStore` (`services.webhooks.adapters.redis`) and the
argument forms they take: each runs on one endpoint's keys under the hash tag `{wh}` (one
Redis Cluster slot), so a batch of deliveries, the games' dispatched seqs and the dispatcher's
checkpoint move together.

A delivery's body is passed apart from the rest of its JSON (`around_body`, `body_args`): the
script keeps the stored body when a forget's scrub changed it while the delivery was in flight.
"""

from __future__ import annotations

import json

from services.adapters.redis.lua_replace import replaced_lua
from services.webhooks.ports import Delivery

_LOG_LUA = """
local function logit(log, json, status, now, maxlog)
  redis.call('LPUSH', log, '{"delivery":' .. json .. ',"status":"' .. status .. '","at_ms":'
    .. now .. ',"http_status":null}')
  redis.call('LTRIM', log, 0, maxlog - 1)
end
"""

_ENQUEUE_LUA = """
local function enqueue(k, id, json, game, maxq, maxlog, now)
  local q, d, co, log, stats = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4]
  if redis.call('HEXISTS', d, id) == 1 then return 0 end
  local placed = 0
  if game ~= '' then
    local old = redis.call('HGET', co, game)
    if old then
      local oldjson = redis.call('HGET', d, old)
      local pos = redis.call('LPOS', q, old)
      if oldjson and pos then
        redis.call('LSET', q, pos, id)
        redis.call('HDEL', d, old)
        logit(log, oldjson, 'superseded', now, maxlog)
        redis.call('HINCRBY', stats, 'superseded', 1)
        placed = 2
      end
    end
  end
  if placed == 0 then
    if redis.call('LLEN', q) >= maxq then
      local victim = nil
      local coalescable = {}
      for _, v in ipairs(redis.call('HVALS', co)) do coalescable[v] = true end
      if next(coalescable) then
        for _, v in ipairs(redis.call('LRANGE', q, 0, -1)) do
          if coalescable[v] then victim = v; break end
        end
      end
      if not victim then victim = redis.call('LINDEX', q, 0) end
      local vjson = redis.call('HGET', d, victim)
      redis.call('LREM', q, 1, victim)
      redis.call('HDEL', d, victim)
      if vjson then
        local vgame = cjson.decode(vjson)['coalesce']
        if type(vgame) == 'string' and redis.call('HGET', co, vgame) == victim then
          redis.call('HDEL', co, vgame)
        end
        logit(log, vjson, 'dropped', now, maxlog)
      end
      redis.call('HINCRBY', stats, 'dropped', 1)
      placed = 3
    else
      placed = 1
    end
    redis.call('RPUSH', q, id)
  end
  redis.call('HSET', d, id, json)
  if game ~= '' then redis.call('HSET', co, game, id) end
  return placed
end
"""

COMMIT_LUA = (
    _LOG_LUA
    + _ENQUEUE_LUA
    + """
local maxq, maxlog, now = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local a = 5
local checks = tonumber(ARGV[a]); a = a + 1
for i = 1, checks do
  if tonumber(redis.call('HGET', KEYS[3], ARGV[a]) or '0') ~= tonumber(ARGV[a + 1]) then
    return -1
  end
  a = a + 2
end
local n = tonumber(ARGV[4])
local out = {}
for i = 1, n do
  out[i] = enqueue(4 + (i - 1) * 5, ARGV[a], ARGV[a + 1], ARGV[a + 2], maxq, maxlog, now)
  a = a + 3
end
local seen = tonumber(ARGV[a]); a = a + 1
for i = 1, seen do redis.call('HSET', KEYS[2], ARGV[a], ARGV[a + 1]); a = a + 2 end
local marks = tonumber(ARGV[a]); a = a + 1
for i = 1, marks do redis.call('HSET', KEYS[1], ARGV[a], ARGV[a + 1]); a = a + 2 end
return out
"""
)
"""KEYS: 1 `ckpt`, 2 `seen`, 3 `scrubs`, then `q d co log stats` of each delivery's endpoint.
ARGV: max queue, max log, now (ms), n, then the scrub checks' count and (game, count) pairs,
then (id, JSON, coalesce game or '') per delivery, then the seen count and (game, seq) pairs,
then the checkpoint's count and (field, value) pairs. Returns -1, storing nothing, when a
game's scrub count is not the one checked (a forget scrubbed it since the dispatcher read its
events); else per delivery 0 (already queued), 1 (queued), 2 (superseded a pending one), 3
(dropped one)."""

# The body as stored, as a JSON string literal: the sender's own literal (ARGV[n + 1]) when the
# stored body equals the one it holds (ARGV[n]), else the stored one (a forget's scrub ran
# while the delivery was in flight: the scrub wins). cjson writes `/` as `\/`; every `/` it
# writes is escaped, so dropping the backslash before each is exact.
_BODY_LUA = """
local function kept_body(stored, n)
  local body = cjson.decode(stored)['body']
  if body == ARGV[n] then return ARGV[n + 1] end
  return (string.gsub(cjson.encode(body), '\\\\/', '/'))
end
"""

SETTLE_LUA = (
    _BODY_LUA
    + """
local q, d, co, log = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local stored = redis.call('HGET', d, ARGV[1])
if not stored then return 0 end
redis.call('HDEL', d, ARGV[1])
redis.call('LREM', q, 1, ARGV[1])
if ARGV[2] ~= '' and redis.call('HGET', co, ARGV[2]) == ARGV[1] then
  redis.call('HDEL', co, ARGV[2])
end
redis.call('LPUSH', log, ARGV[3] .. kept_body(stored, 6) .. ARGV[4])
redis.call('LTRIM', log, 0, tonumber(ARGV[5]) - 1)
return 1
"""
)
"""KEYS: `q d co log` of the endpoint. ARGV: id, coalesce game or '', the log entry JSON
before and after its delivery's body literal, max log, the body sent and its literal. Returns 1
when settled, 0 when the delivery was no longer queued."""

ATTEMPTED_LUA = (
    _BODY_LUA
    + """
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. kept_body(stored, 4) .. ARGV[3])
return 1
"""
)
"""KEYS: the endpoint's pending HASH. ARGV: id, the delivery JSON before and after its body
literal, the body sent and its literal. Returns 1 when recorded, 0 when no longer queued."""


# KEYS: 1 `scrubs` (the game's count goes up by one: a dispatch commit that read the game's
# events before this scrub is refused), then per endpoint its pending HASH `d` then its log
# LIST; ARGV: 1 game id, then (old, new) pairs of the texts as stored (the body is a JSON
# string inside the stored JSON). Only the deliveries of the game change; plain (not pattern)
# replacement.
SCRUB_LUA = (
    replaced_lua(2)
    + """
local function of_game(json, logged)
  local ok, v = pcall(cjson.decode, json)
  if not ok or type(v) ~= 'table' then return false end
  if logged then v = v['delivery'] end
  return type(v) == 'table' and v['game_id'] == ARGV[1]
end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local changed = 0
for k = 2, #KEYS - 1, 2 do
  local fields = redis.call('HGETALL', KEYS[k])
  for i = 1, #fields, 2 do
    if of_game(fields[i + 1], false) then
      local new = replaced(fields[i + 1])
      if new ~= fields[i + 1] then
        redis.call('HSET', KEYS[k], fields[i], new)
        changed = changed + 1
      end
    end
  end
  local items = redis.call('LRANGE', KEYS[k + 1], 0, -1)
  for i = 1, #items do
    if of_game(items[i], true) then
      local new = replaced(items[i])
      if new ~= items[i] then
        redis.call('LSET', KEYS[k + 1], i - 1, new)
        changed = changed + 1
      end
    end
  end
end
return changed
"""
)


_NO_BODY = '"body":""'


def around_body(text: str) -> tuple[str, str]:
    """`text`, JSON holding one delivery whose body is `""`, split around that literal: a
    `"body":""` outside a string literal occurs once (inside one, every `"` is escaped)."""
    head, _, tail = text.partition(_NO_BODY)
    return head + '"body":', tail


def body_args(d: Delivery) -> list[str]:
    """ARGV tail of `_BODY_LUA`: the body the sender holds and its literal as `json` writes it."""
    return [d.body, json.dumps(d.body)]
