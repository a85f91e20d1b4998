"""The core of every stream's append script (games, tournaments, leagues: one kernel): token
digest, expected head, idempotent event ids, expected version per event, the stream writes and
the touch that makes an all-duplicate call durable. Each kind's script is its preamble, this
core, and nothing else (`append_lua.APPEND_LUA`, `sidelog.APPEND_SIDE_LUA`).

The preamble names, as Lua locals:

* `STREAM`, `IDS`, `TOKEN`: the stream, its event-id HASH and its token digest STRING (one
  slot);
* `DIGEST`: the writer's token digest ("" unchecked), `HEAD`: the event id the stored last
  event must carry ("" unchecked), `FIRST`: the ARGV index after which the events' values
  start (4 per event: event_id, seq, type, data);
* `written(sseq, data, version, next_version)`: called after each new event is stored in
  `STREAM` (with the version the call started from and the one it will reach), returns the
  text the reply carries for it (the games' shard feed entry id; "" for a kind without a
  feed);
* `checked(version, next_version)`: called once the whole batch passed its checks, before
  anything of it is written, with the version the call started from and the one it will
  reach (the games' player names, kept first-writer-wins when the call stores an event;
  nothing for the side streams);
* `grown()`: called once when the call stored at least one event (the games' index);
* `TAIL`: how many ARGV values after the events' belong to the kind (the games' live
  projection; 0 for none), and `finish(version, next_version)`: called last, before the
  reply, with the version the call started from and the one it reached (the games' live
  projection is stored there).

Rules (docs/decisions/0002-one-atomic-append.md): the whole batch is checked before anything is
written, so a conflict writes nothing. A stored digest admits only appends carrying it; a
stream with events but no digest admits none (`WRONGTOKEN`); the call writing seq 1 stores the
digest in the same step. A non-empty `HEAD` must be the id of the stored last event (entry
`<XLEN>-1`; `-`: the stream must be empty), else `WRONGHEAD version V`. A duplicate event id (stored, or earlier in the batch)
is not an error: its original seq comes back with the dup flag. Each new event's `seq - 1` must
be the version reached, else `WRONGVERSION expected X actual Y`. Entry ids are `<seq>-1`, so
XLEN is the version and `XRANGE` reads by seq. A call that stores no event sets the first id's
seq in `IDS` again (data unchanged): the call propagates, so a `WAIT` after it on the same
connection covers the original write too (durable acknowledgements).

Reply: a flat array, the version, then per event its seq, `written`'s text ("" for a
duplicate) and dup (0/1).
"""

APPEND_CORE_LUA = """
local n = (#ARGV - FIRST - TAIL) / 4
local version = redis.call('XLEN', STREAM)
if DIGEST ~= '' then
  local stored = redis.call('GET', TOKEN)
  if (stored and stored ~= DIGEST) or (not stored and version > 0) then
    return redis.error_reply('WRONGTOKEN the write token does not match the stream')
  end
end
if HEAD ~= '' then
  local head = version > 0 and '' or '-'  -- '-': the writer expects no event
  if version > 0 then
    local last = redis.call('XRANGE', STREAM, version .. '-1', version .. '-1')
    local f = last[1] and last[1][2] or {}
    for j = 1, #f - 1, 2 do if f[j] == 'id' then head = f[j + 1] end end
  end
  if head ~= HEAD then
    return redis.error_reply('WRONGHEAD version ' .. version)
  end
end
local next_version = version
local seen = {}
local plan = {}
for i = 0, n - 1 do
  local eid = ARGV[FIRST + 1 + i * 4]
  local seq = tonumber(ARGV[FIRST + 2 + i * 4])
  local original = seen[eid] or redis.call('HGET', IDS, eid)
  if original then
    plan[i + 1] = {dup = true, seq = tonumber(original)}
  else
    if seq - 1 ~= next_version then
      return redis.error_reply('WRONGVERSION expected ' .. (seq - 1) .. ' actual ' .. next_version)
    end
    next_version = seq
    seen[eid] = seq
    plan[i + 1] = {dup = false, seq = seq}
  end
end
checked(version, next_version)
local out = {next_version}
for i = 0, n - 1 do
  local p = plan[i + 1]
  if p.dup then
    table.insert(out, p.seq); table.insert(out, ''); table.insert(out, 1)
  else
    local at = FIRST + 1 + i * 4
    local eid, etype, data = ARGV[at], ARGV[at + 2], ARGV[at + 3]
    local sseq = tostring(p.seq)
    redis.call('XADD', STREAM, sseq .. '-1', 'seq', sseq, 'id', eid, 'type', etype, 'data', data)
    local extra = written(sseq, data, version, next_version)
    redis.call('HSET', IDS, eid, sseq)
    if p.seq == 1 and DIGEST ~= '' then redis.call('SET', TOKEN, DIGEST) end
    table.insert(out, p.seq); table.insert(out, extra); table.insert(out, 0)
  end
end
if next_version > version then
  grown()
elseif n > 0 then
  redis.call('HSET', IDS, ARGV[FIRST + 1], tostring(plan[1].seq))
end
finish(version, next_version)
return out
"""
"""The shared core (see the module doc); it ends the script with `return out`."""
