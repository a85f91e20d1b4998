"""The projector's apply Lua script: projections, change notices and the checkpoint, in one
atomic step per feed batch. Source: docs/decisions/0004-projector-catch-up-subscription.md (exactly-once effect).

KEYS: 1 checkpoint, 2 changes stream, 3 held-games HASH, then one projection HASH per op (all
`{sK}`).
ARGV: 1 batch's last feed id, 2 changes MAXLEN (approximate), 3 now (ISO), 4 op count, then
per op 8 values: kind (`apply` | `hold`), game_id, base_seq, new_seq, status, game, standings
(for `hold`: the hold's reason JSON), view (the rendered API view; '' for none).

* The whole batch is skipped (returns -1) when the stored checkpoint is at or after its last id;
  a batch whose last id is '' (a reseed from the game streams) leaves the checkpoint as it is.
* `apply` writes only when the projection's stored seq equals `base_seq` and the game is not
  held: then seq/status/game/standings/updated_at, `live` = 0 (not an append's: see
  `live_lua`), the view with `view_seq` = new seq (an empty
  view leaves `view_seq` empty: no reader serves a view of another seq), and one changes
  notice.
* `hold` sets the projection's `held` field to the bad event's seq (later events wait) and
  `held_reason`, and lists the game in the shard's held-games HASH (`scoreledger release`
  clears both).
Returns the indexes (1-based) of ops that were skipped, or -1.

`ADVANCE_LUA` is the write of a batch an append already projected (docs/profiles/projector-round-trips.md):
the checkpoint moves only if every game of the batch has a projection stored by an append (`live`
1), not held, at or past the batch's last seq for it; else nothing is written and each game's
head is returned, so the projector folds what it must without asking the heads again.

No ledger list is written: the ledger read model folds the log (it honours voids and never
lags the log), and nothing read the list (docs/decisions/0004-projector-catch-up-subscription.md).
"""

_AFTER_LUA = """
local function after(a, b)  -- stream id a > b ?
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
"""

APPLY_LUA = (
    _AFTER_LUA
    + """local stored = redis.call('GET', KEYS[1])
local moves = ARGV[1] ~= ''  -- '' (a reseed from the game streams): the checkpoint stays
if moves and stored and not after(ARGV[1], stored) then return -1 end
local skipped = {}
local cursor = 5
for op = 1, tonumber(ARGV[4]) do
  local kind, game_id = ARGV[cursor], ARGV[cursor + 1]
  local base_seq, new_seq = ARGV[cursor + 2], ARGV[cursor + 3]
  local status, game, standings = ARGV[cursor + 4], ARGV[cursor + 5], ARGV[cursor + 6]
  local view = ARGV[cursor + 7]
  local proj = KEYS[3 + op]
  local held = redis.call('HGET', proj, 'held')
  local seq = tonumber(redis.call('HGET', proj, 'seq') or '0')
  if kind == 'hold' then
    if not held then
      redis.call('HSET', proj, 'held', new_seq, 'held_reason', standings)
      redis.call('HSET', KEYS[3], game_id, standings)
    end
  elseif held or seq ~= tonumber(base_seq) then
    table.insert(skipped, op)
  else
    redis.call('HSET', proj, 'seq', new_seq, 'status', status, 'game', game,
      'standings', standings, 'updated_at', ARGV[3], 'view', view,
      'view_seq', view == '' and '' or new_seq, 'live', '0')
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'game', game_id, 'seq', new_seq)
  end
  cursor = cursor + 8
end
if moves then redis.call('SET', KEYS[1], ARGV[1]) end
return skipped
"""
)

ADVANCE_LUA = (
    _AFTER_LUA
    + """local stored = redis.call('GET', KEYS[1])
if stored and not after(ARGV[1], stored) then return -1 end
local heads, reached = {}, true
for i = 1, tonumber(ARGV[2]) do
  local head = redis.call('HMGET', KEYS[1 + i], 'seq', 'held', 'held_reason', 'live')
  heads[i] = head
  if head[4] ~= '1' or head[2] or tonumber(head[1] or '0') < tonumber(ARGV[2 + i]) then
    reached = false
  end
end
if not reached then return heads end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""
)
"""The checkpoint-only write of a batch an append projected (module docstring). KEYS: 1
checkpoint, then one projection HASH per game (all `{sK}`). ARGV: 1 the batch's last feed id
(not ''), 2 the game count n, then per game the batch's last seq of it. Returns -1 (the
checkpoint is at or after the id: nothing written), 1 (moved), or per game its HMGET of `seq`,
`held`, `held_reason`, `live` (nothing written)."""
