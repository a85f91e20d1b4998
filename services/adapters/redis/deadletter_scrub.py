"""A forget's scrub of the dead letters on Redis (`DeadLetters.scrub`, docs/forget.md).

A stream entry cannot be changed in place, so a letter whose raw holds the name is deleted
and added again (`XDEL` + `XADD *`) with the scrubbed raw and every other field as stored,
plus `scrubbed_from` (its first id), in one Lua call per page of a stream. The new id puts
it at the end of the stream: `XRANGE` order is no longer the order of lettering, and an
integration's `XREAD` sees it again as new (its `scrubbed_from` tells it apart). Retention
trims by id, so each letter added again is indexed in the ZSET `{sl:deadletter}:scrubbed`
(member `<stream>|<id>`, score: the ms of its first id), and `trim_scrubbed` deletes it when
its first id is past the retention, as `XTRIM MINID` would have.

Every key involved (`sl:deadletter`, `{sl:deadletter}:inbox:<name>`, the ZSET) hashes to the
slot of `sl:deadletter`, so a call is one slot on Redis Cluster. The work is bounded by the
streams' length (letters are kept `SCORELEDGER_DEAD_LETTER_KEEP_S`, no count cap): each stream
is read in pages of `PAGE` entries, up to its last id at the start (letters added meanwhile,
the scrubbed ones among them, are not read again).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.retention import STREAM_TRIMMED
from services.ports.deadletters import SCRUBBED_FROM, DeadLetter, scrubbed

PAGE = 500
"""Letters read per `XRANGE` (and at most scrubbed per Lua call)."""

OWN = {"raw", "reason", "source", "time"}
"""A letter's own fields; the others are its context."""

SCRUB_LUA = """
local n = 0
for i = 1, #ARGV, 2 do
  local e = redis.call('XRANGE', KEYS[1], ARGV[i], ARGV[i])
  if #e == 1 then
    local f, first, had = e[1][2], ARGV[i], false
    for j = 1, #f, 2 do
      if f[j] == 'raw' then f[j + 1] = ARGV[i + 1]
      elseif f[j] == 'scrubbed_from' then first = f[j + 1]; had = true end
    end
    if not had then f[#f + 1] = 'scrubbed_from'; f[#f + 1] = first end
    redis.call('XDEL', KEYS[1], ARGV[i])
    local id = redis.call('XADD', KEYS[1], '*', unpack(f))
    redis.call('ZREM', KEYS[2], KEYS[1] .. '|' .. ARGV[i])
    redis.call('ZADD', KEYS[2], tonumber(string.match(first, '^%d+')), KEYS[1] .. '|' .. id)
    n = n + 1
  end
end
return n
"""
"""KEYS: 1 a letter stream, 2 the scrubbed index. ARGV: (letter id, new raw) pairs; a letter
gone meanwhile (trimmed) is skipped. Returns how many letters were stored again."""


def letter_of(fields: dict[str, bytes]) -> DeadLetter:
    """A stored letter's fields (names decoded) as a `DeadLetter`."""
    context: dict[str, str | int] = {
        k: v.decode(errors="replace") for k, v in fields.items() if k not in OWN
    }
    reason = json.loads(fields["reason"])
    return DeadLetter(fields["raw"], reason, fields["source"].decode(), context)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class LetterScrub:
    """`DeadLetters.scrub` on Redis (module docstring). `client`: without `decode_responses`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._scrub = client.register_script(SCRUB_LUA)

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """Scrub `sl:deadletter`, then the integration copies its letters name (context
        `inbox` = `sl:inbox:<name>`: the copy `{sl:deadletter}:inbox:<name>`); how many
        letters changed."""
        copies: set[str] = set()
        changed = await self._stream(self.keys.dead_letter, game_id, replacements, copies)
        for name in sorted(copies):
            stream = self.keys.integration_dead_letters(name)
            changed += await self._stream(stream, game_id, replacements, None)
        return changed

    async def _stream(
        self,
        stream: str,
        game_id: str,
        replacements: Sequence[tuple[str, str]],
        copies: set[str] | None,
    ) -> int:
        """Scrub one stream up to its last id now; integrations named by its letters are
        added to `copies` (None: not looked for)."""
        last: Any = await self.client.xrevrange(stream, count=1)
        if not last:
            return 0
        end, start, changed = _text(last[0][0]), "-", 0
        prefix = self.keys.integration_inbox("")
        while True:
            page: Any = await self.client.xrange(stream, min=start, max=end, count=PAGE)
            args: list[bytes | str] = []
            for entry_id, raw in page:
                letter = letter_of({k.decode(): v for k, v in raw.items()})
                inbox = letter.context.get("inbox")
                if copies is not None and isinstance(inbox, str) and inbox.startswith(prefix):
                    copies.add(inbox.removeprefix(prefix))
                new = scrubbed(letter, game_id, replacements)
                if new is not None:
                    args += [_text(entry_id), new]
            if args:
                keys = [stream, self.keys.dead_letter_scrubbed]
                changed += int(await self._scrub(keys=keys, args=args))
            if len(page) < PAGE:
                return changed
            start = "(" + _text(page[-1][0])


async def trim_scrubbed(client: RedisClient, keys: Keys, bound_ms: int) -> int:
    """Delete the letters stored again by a scrub whose first id is older than `bound_ms`
    (Unix ms), from whichever letter stream holds them, and their index entries; how many.
    One key per command (each in the dead-letters' slot): no script needed."""
    index = keys.dead_letter_scrubbed
    members: Any = await client.zrange(index, 0, bound_ms - 1, byscore=True)
    deleted = 0
    for member in members:
        stream, _, entry_id = _text(member).rpartition("|")
        deleted += int(await client.xdel(stream, entry_id))
    if members:
        await client.zrem(index, *members)
    STREAM_TRIMMED.labels(stream="deadletter").inc(deleted)
    return deleted


__all__ = ["PAGE", "SCRUBBED_FROM", "LetterScrub", "letter_of", "trim_scrubbed"]
