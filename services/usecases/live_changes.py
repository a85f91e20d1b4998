"""What live push reads: the projector's change notices of every shard and the changed games'
projection fields (stored, else archived), behind one use case.

The push hub (`services.doors.push.hub.ChangeHub`) follows the notices from each shard's tail
and renders what it pushes from the fields; it reaches the store only through `LiveChanges`.
Reads raise the ports' `StoreUnavailable` when the store cannot answer now. Source:
docs/decisions/0018-observability-at-the-edges.md (SSE id = notice id).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from services.ports.notices import ChangeNotices, Notice, ProjectionFields
from services.ports.shards import shard_of

Archived = Callable[[str], Awaitable[dict[str, str] | None]]
"""An archived game's final projection fields (None: not archived)."""


@dataclass(frozen=True, slots=True)
class LiveChanges:
    """The change notices and projection fields of all `shards` shards.

    Attributes:
        notices: the change notices (one stream of notices per shard).
        projections: the games' stored projection fields.
        shards: how many shards there are.
        archive: an archived game's projection fields, read when the store has none (None:
            no archive).
    """

    notices: ChangeNotices
    projections: ProjectionFields
    shards: int
    archive: Archived | None = None

    def shard_of(self, game_id: str) -> int:
        """The shard whose notices carry `game_id`'s changes."""
        return shard_of(game_id, self.shards)

    async def tails(self) -> dict[int, str]:
        """Each shard's newest notice id (`0-0` when none), by shard (one round trip)."""
        shards = list(range(self.shards))
        return dict(zip(shards, await self.notices.tails(shards), strict=True))

    async def read(
        self, after: Mapping[int, str], count: int, block_ms: int | None
    ) -> Sequence[Notice]:
        """Notices after each shard's position in `after`, oldest first per shard, at most
        `count`; waits up to `block_ms` ms for one when there is none (None: no wait)."""
        return await self.notices.read(after, count=count, block_ms=block_ms)

    async def changed_since(self, game_id: str, after: str, limit: int) -> Notice | None:
        """The newest notice of `game_id` among the first `limit` notices of its shard after
        `after`, or None. Raises: ValueError: `after` is not a notice id (`ms-n`)."""
        return await self.notices.changed_since(game_id, after, limit)

    async def fields(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        """Each game's stored projection fields, {} for a game without one, in order."""
        return await self.projections.fields(game_ids)

    async def archived(self, game_id: str) -> dict[str, str] | None:
        """`game_id`'s final projection fields from the archive (None: not archived, or no
        archive)."""
        return None if self.archive is None else await self.archive(game_id)
