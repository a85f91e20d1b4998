"""Dead letters on Redis (`services.ports.deadletters.DeadLetters`): the stream `Keys.dead_letter`.

Entry fields: `raw` (the input as received), `reason` (JSON), `source` (`http`, `inbox`,
`projector`), `time` (ISO 8601 UTC), plus the letter's context (`game`, `seq`, `feed_id`,
`inbox_id`). Trimmed by age (`services.adapters.redis.retention`).

`put_once` writes a letter at most once per key: a marker `{sl:deadletter}:once:<key>` (hash tag
= the stream's name, so marker and stream share a Redis Cluster slot) is SET NX with a TTL and
the letter XADDed in the same Lua call. A letter of an integration's own inbox stream (context
`inbox` = `sl:inbox:<name>`) is also XADDed, in that call, to `{sl:deadletter}:inbox:<name>`,
which that integration's ACL user may read (docs/integrating/inbox.md), trimmed there by the
same age (`MINID`).

`scrub` (a forget) stores a letter again with the name replaced in its raw
(`services.adapters.redis.deadletter_scrub`); `trim` also trims those by their first id.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.deadletter_scrub import LetterScrub, letter_of, trim_scrubbed
from services.adapters.redis.keys import Keys
from services.adapters.redis.retention import trim_dead_letters
from services.platform.metrics import EVENTS_DEAD_LETTERED
from services.ports.deadletters import DeadLetter, StoredLetter

PUT_ONCE_LUA = """
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return false end
if KEYS[3] then
  redis.call('XADD', KEYS[3], 'MINID', '~', ARGV[2], '*', unpack(ARGV, 3))
end
return redis.call('XADD', KEYS[1], '*', unpack(ARGV, 3))
"""
"""KEYS: 1 the dead-letter stream, 2 the once marker, 3 (optional) the integration's copy.
ARGV: 1 the marker's TTL (ms), 2 the oldest id the copy keeps (now - TTL), then the letter's
field/value pairs. Returns the letter id, or nil when the marker existed."""


class RedisDeadLetters:
    """`client`: `redis.asyncio.Redis` without `decode_responses`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._put_once = client.register_script(PUT_ONCE_LUA)
        self._scrub = LetterScrub(client, keys)

    @staticmethod
    def _fields(letter: DeadLetter) -> dict[str, bytes | str | int]:
        return {
            "raw": letter.raw,
            "reason": json.dumps(dict(letter.reason), default=str, ensure_ascii=False),
            "source": letter.source,
            "time": datetime.now(UTC).isoformat(),
            **letter.context,
        }

    async def put(self, letter: DeadLetter) -> str:
        """XADD one letter; returns its entry id."""
        fields = self._fields(letter)
        entry_id = await self.client.xadd(self.keys.dead_letter, fields)  # type: ignore[arg-type]
        EVENTS_DEAD_LETTERED.labels(source=letter.source).inc()
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)

    async def put_once(self, letter: DeadLetter, once: str, keep_s: float) -> str | None:
        """XADD `letter` unless `once` was lettered within `keep_s` seconds (one Lua call);
        returns the letter id, or None for a repeat."""
        keys = [self.keys.dead_letter, self.keys.dead_letter_once(once)]
        own = self._integration(letter)
        if own is not None:
            keys.append(self.keys.integration_dead_letters(own))
        pairs = [v for kv in self._fields(letter).items() for v in kv]
        ttl_ms = max(1, int(keep_s * 1000))
        oldest = f"{max(0, int(time.time() * 1000) - ttl_ms)}-0"
        entry_id: Any = await self._put_once(keys=keys, args=[ttl_ms, oldest, *pairs])
        if entry_id is None:
            return None
        EVENTS_DEAD_LETTERED.labels(source=letter.source).inc()
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)

    def _integration(self, letter: DeadLetter) -> str | None:
        """The integration whose own inbox stream `letter` came from, or None."""
        stream = letter.context.get("inbox")
        prefix = self.keys.integration_inbox("")
        if letter.source != "inbox" or not isinstance(stream, str):
            return None
        return stream.removeprefix(prefix) if stream.startswith(prefix) else None

    async def trim(self, keep_s: float, now_ms: int) -> int:
        """XTRIM MINID the letters older than `keep_s` (`retention.trim_dead_letters`), and
        the letters a scrub stored again whose first id is as old (`trim_scrubbed`)."""
        trimmed = await trim_dead_letters(self.client, self.keys.dead_letter, keep_s, now_ms)
        bound = now_ms - int(keep_s * 1000)
        return trimmed + (await trim_scrubbed(self.client, self.keys, bound) if bound > 0 else 0)

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """See `DeadLetters.scrub` (`deadletter_scrub.LetterScrub`)."""
        return await self._scrub.scrub(game_id, replacements)

    async def read(self, count: int = 100) -> list[StoredLetter]:
        """The first `count` letters in stream order: the oldest first, except that a letter a
        forget scrubbed was stored again at the end (context `scrubbed_from`: its first id)."""
        entries: Any = await self.client.xrange(self.keys.dead_letter, count=count)
        out = []
        for entry_id, raw in entries:
            fields = {k.decode(): v for k, v in raw.items()}
            letter = letter_of(fields)
            out.append(StoredLetter(entry_id.decode(), letter, fields["time"].decode()))
        return out
