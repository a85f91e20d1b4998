"""The dead-letter port: every input that could not be recorded or projected, kept whole.

A letter holds the raw input as received, the reason (a `Refusal`'s kind/rule/field/message;
an inbox letter adds the members of the problem HTTP answers for it: `status`, `type`,
`title`, `detail`, `index`, `errors`, ...), its source (`http`, `inbox`, `projector`), the time, and context such as
`game`, `seq`, `feed_id`, `inbox_id`. Letters are kept `dead_letter_keep_s` (`trim`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """One refused input; `reason` is JSON-ready, `context` values are short strings or ints."""

    raw: bytes
    reason: Mapping[str, Any]
    source: str
    context: Mapping[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StoredLetter:
    """A letter as stored: its id, the letter, and the ISO 8601 UTC time it was stored."""

    letter_id: str
    letter: DeadLetter
    time: str


class DeadLetters(Protocol):
    """Implementations: `adapters.redis.deadletters.RedisDeadLetters`, `adapters.memory`."""

    async def put(self, letter: DeadLetter) -> str:
        """Store one letter (stamped with the time now); returns its id."""
        ...

    async def read(self, count: int = 100) -> list[StoredLetter]:
        """The oldest `count` letters, oldest first."""
        ...

    async def put_once(self, letter: DeadLetter, once: str, keep_s: float) -> str | None:
        """Store `letter` unless a letter with the same `once` key (e.g. `inbox:<entry id>`)
        was stored in the last `keep_s` seconds, atomically: a redelivered input is lettered
        exactly once. Returns the new letter's id, or None when it was already lettered."""
        ...

    async def trim(self, keep_s: float, now_ms: int) -> int:
        """Remove letters stored more than `keep_s` seconds before `now_ms` (Unix ms);
        returns how many (retention: `IngestSettings.dead_letter_keep_s`)."""
        ...
