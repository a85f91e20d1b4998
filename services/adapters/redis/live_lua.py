"""The append script's live projection fragment (`append_lua.APPEND_LUA` ends with it): a
live game's projection, rendered from the state the append's check computed
(`services.ports.eventlog.LiveProjection`), stored in the same atomic step as the events.

With KEYS 7 the game's projection HASH, 8 the shard's change notices stream (6 is the game's
names HASH; all in the game's slot `{sK}`), the append's last 7 ARGV are the projection: seq,
status, game (ruleset), standings JSON, view ('' for none), updated_at (ISO), changes MAXLEN
(approximate). It is stored, as the projector's apply script stores an `apply` op
(`project_lua.APPLY_LUA`: the same fields, `view_seq`, one change notice) with `live` = 1
(the projector skips the feed entries of a game whose live projection reaches them; its own
writes, and a forget that could not render the projection, set it to 0), only when:
* the append wrote events and reached the projection's seq (a duplicate raced in: no);
* the stored projection's seq is the version the append started from (0: none) and the game
  is not held: the projection is the state just before, so this one follows it; a lagging
  projection (the projector behind, a rebuild, a hold released) is left to the projector,
  which folds the feed from it;
* no player of the game was forgotten (a name kept as ''): the writer's cached state may
  still hold the name, the projector renders such a game from the log.
The decision (`projects`) is taken once, at the call's first new event, before the feed
entries are written: each feed entry of a call that stores the projection carries `live` = 1,
so the projector reads the projections' heads only of games whose entries say so (a catch-up of
entries the projector must fold anyway reads none).
The shard checkpoint does not move: it is the projector's position in the feed, which skips
the entries of a game whose stored projection already reaches them.
Source: docs/decisions/0004-projector-catch-up-subscription.md (live projection).
"""

LIVE_PROJECTION_ARGS = 7
"""ARGV values of a live projection, after the events'."""

LIVE_PROJECTION_LUA = """
local projecting = nil
local function projects(version, next_version)
  if projecting == nil then
    projecting = false
    if live > 0 and next_version > version and tostring(next_version) == ARGV[#ARGV - 6] then
      local forgotten = false
      local kept = redis.call('HGETALL', KEYS[6])
      for j = 2, #kept, 2 do if kept[j] == '' then forgotten = true end end
      local held = redis.call('HGET', KEYS[7], 'held')
      local seq = tonumber(redis.call('HGET', KEYS[7], 'seq') or '0')
      projecting = not forgotten and not held and seq == version
    end
  end
  return projecting
end
local function project(version, next_version)
  if projects(version, next_version) then
    local a = #ARGV - 7
    local new_seq, view = ARGV[a + 1], ARGV[a + 5]
    redis.call('HSET', KEYS[7], 'seq', new_seq, 'status', ARGV[a + 2], 'game', ARGV[a + 3],
      'standings', ARGV[a + 4], 'updated_at', ARGV[a + 6], 'view', view,
      'view_seq', view == '' and '' or new_seq, 'live', '1')
    redis.call('XADD', KEYS[8], 'MAXLEN', '~', ARGV[a + 7], '*', 'game', ARGV[1], 'seq', new_seq)
  end
end
"""
