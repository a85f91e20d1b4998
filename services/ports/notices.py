"""The change-notices port: "game G's projection is at seq S" per shard, for live push.

Notices are written by `Projections.write` (same atomic step as the projection); readers
follow them from a position, one position per shard (entry ids order within a shard only).
The push hub follows every shard's notices and reads the changed games' projection fields
(`ProjectionFields`) to render what it pushes. Reads raise `StoreUnavailable` when the store
cannot answer now.
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

    async def tails(self, shards: Sequence[int]) -> list[str]:
        """`tail` of each of `shards`, in order (one round trip)."""
        ...

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        """Notices after each shard's position in `after`, oldest first per shard; waits up to
        `block_ms` for one when there is none (None: do not wait)."""
        ...

    async def changed_since(
        self, game_id: str, after: str, limit: int | None = None
    ) -> Notice | None:
        """The newest notice of `game_id` among the first `limit` (None: all) notices of its
        shard after `after`, or None.

        Raises: ValueError: `after` is not a notice id (`ms-n`)."""
        ...


class ProjectionFields(Protocol):
    """The projection of games as stored, field by field (what live push renders from).
    Implementations: `RedisProjections`, `MemoryProjections`."""

    async def fields(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        """Each game's stored projection fields (`seq`, `status`, `game`, `standings`,
        `updated_at`, `view`, `view_seq`, `held`, ...), {} for a game without one; in order,
        one round trip."""
        ...
