"""The projector's apply Lua script: projections, ledgers, change notices and the checkpoint,
in one atomic step per feed batch. Source: research/tech.md §3.4 (exactly-once effect).

KEYS: 1 checkpoint, 2 changes stream, then per op: projection HASH, ledger LIST (all `{sK}`).
ARGV: 1 batch's last feed id, 2 changes MAXLEN (approximate), 3 now (ISO), 4 op count, then
per op: kind (`apply` | `hold`), game_id, base_seq, new_seq, status, game, standings JSON,
ledger mode (`append` | `replace`), entry count n, then n ledger-entry JSON strings.

* The whole batch is skipped (returns -1) when the stored checkpoint is at or after its last id.
* `apply` writes only when the projection's stored seq equals `base_seq` and the game is not
  held: then seq/status/game/standings/updated_at, the ledger entries, and one changes notice.
* `hold` sets the projection's `held` field to the bad event's seq: later events wait.
Returns the indexes (1-based) of ops that were skipped, or -1.
"""

APPLY_LUA = """
local function after(a, b)  -- stream id a > b ?
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
local stored = redis.call('GET', KEYS[1])
if stored and not after(ARGV[1], stored) then return -1 end
local skipped = {}
local cursor = 5
for op = 1, tonumber(ARGV[4]) do
  local kind, game_id = ARGV[cursor], ARGV[cursor + 1]
  local base_seq, new_seq = ARGV[cursor + 2], ARGV[cursor + 3]
  local status, game = ARGV[cursor + 4], ARGV[cursor + 5]
  local standings, mode = ARGV[cursor + 6], ARGV[cursor + 7]
  local n = tonumber(ARGV[cursor + 8])
  local proj, ledger = KEYS[1 + op * 2], KEYS[2 + op * 2]
  local held = redis.call('HGET', proj, 'held')
  local seq = tonumber(redis.call('HGET', proj, 'seq') or '0')
  if kind == 'hold' then
    if not held then redis.call('HSET', proj, 'held', new_seq) end
  elseif held or seq ~= tonumber(base_seq) then
    table.insert(skipped, op)
  else
    redis.call('HSET', proj, 'seq', new_seq, 'status', status, 'game', game,
      'standings', standings, 'updated_at', ARGV[3])
    if mode == 'replace' then redis.call('DEL', ledger) end
    for i = 1, n, 1000 do  -- one RPUSH per 1000 entries (unpack stays under Lua's stack limit)
      redis.call('RPUSH', ledger, unpack(ARGV, cursor + 8 + i, cursor + 8 + math.min(n, i + 999)))
    end
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'game', game_id, 'seq', new_seq)
  end
  cursor = cursor + 9 + n
end
redis.call('SET', KEYS[1], ARGV[1])
return skipped
"""
