"""Dead letters on Redis (`services.ports.deadletters.DeadLetters`): the stream `Keys.dead_letter`.

Entry fields: `raw` (the input as received), `reason` (JSON), `source` (`http`, `inbox`,
`projector`), `time` (ISO 8601 UTC), plus the letter's context (`game`, `seq`, `feed_id`,
`inbox_id`). Never trimmed by us.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from services.adapters.redis.connect import RedisClient
from services.keys import Keys
from services.metrics import EVENTS_DEAD_LETTERED
from services.ports.deadletters import DeadLetter, StoredLetter

_OWN = {"raw", "reason", "source", "time"}


class RedisDeadLetters:
    """`client`: `redis.asyncio.Redis` without `decode_responses`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys

    async def put(self, letter: DeadLetter) -> str:
        """XADD one letter; returns its entry id."""
        fields: dict[str, bytes | str | int] = {
            "raw": letter.raw,
            "reason": json.dumps(dict(letter.reason), default=str, ensure_ascii=False),
            "source": letter.source,
            "time": datetime.now(UTC).isoformat(),
            **letter.context,
        }
        entry_id = await self.client.xadd(self.keys.dead_letter, fields)  # type: ignore[arg-type]
        EVENTS_DEAD_LETTERED.labels(source=letter.source).inc()
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)

    async def read(self, count: int = 100) -> list[StoredLetter]:
        """The oldest `count` letters."""
        entries: Any = await self.client.xrange(self.keys.dead_letter, count=count)
        out = []
        for entry_id, raw in entries:
            fields = {k.decode(): v for k, v in raw.items()}
            context: dict[str, str | int] = {
                k: v.decode(errors="replace") for k, v in fields.items() if k not in _OWN
            }
            letter = DeadLetter(
                raw=fields["raw"],
                reason=json.loads(fields["reason"]),
                source=fields["source"].decode(),
                context=context,
            )
            out.append(StoredLetter(entry_id.decode(), letter, fields["time"].decode()))
        return out
