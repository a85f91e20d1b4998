"""The Lua `replaced(s)` function the name-scrubbing scripts share: every `(old, new)` pair of
ARGV, from `first` on, replaced in `s` as plain text (`string.find` with `plain`: a name may
hold Lua pattern characters). Used by `names.py` (forget) and `webhooks.py` (kept bodies)."""

from __future__ import annotations


def replaced_lua(first: int) -> str:
    """The Lua source of `local function replaced(s)` reading its pairs from `ARGV[first]`,
    `ARGV[first + 1]`, ... (1-based, as Lua counts)."""
    return f"""
local function replaced(s)
  for j = {first}, #ARGV - 1, 2 do
    local old, new, out, i = ARGV[j], ARGV[j + 1], {{}}, 1
    while true do
      local a, b = string.find(s, old, i, true)
      if not a then break end
      out[#out + 1] = string.sub(s, i, a - 1)
      out[#out + 1] = new
      i = b + 1
    end
    out[#out + 1] = string.sub(s, i)
    s = table.concat(out)
  end
  return s
end"""
