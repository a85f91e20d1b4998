"""The change-notices port: "game G's projection is at seq S" per shard, for live push.

Notices are written by `Projections.write` (same atomic step as the projection); readers
follow them from a position, one position per shard (entry ids order within a shard only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Notice:
    """Entry `entry_id` of shard `shard`'s notices: `game_id` is projected at `seq`."""

    shard: int
    entry_id: str
    game_id: str
    seq: int


class ChangeNotices(Protocol):
    """Implementations: `adapters.redis.notices.RedisChangeNotices`, `adapters.memory`."""

    async def tail(self, shard: int) -> str:
        """The id of the shard's newest notice (`0-0` when none)."""
        ...

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        """Notices after each shard's position in `after`, oldest first per shard; waits up to
        `block_ms` for one when there is none (None: do not wait)."""
        ...

    async def changed_since(self, game_id: str, after: str) -> Notice | None:
        """The newest notice of `game_id` after `after` in its shard, or None."""
        ...
