"""The change hub reads no notices while nobody subscribes, and a subscription that wakes it
starts from the shards' tails: `position` covers every change before it (the store's
`current` reflects them), and a change after it is delivered.
Source: docs/profiles/hot-path-profiles.md (what the hub spent per change in `serve`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from services.doors.push.hub import ChangeHub, Delivery
from services.ports.notices import Notice
from services.usecases.live_changes import LiveChanges

SHARDS = 2


def _number(notice: Notice) -> int:
    return int(notice.entry_id.split("-")[0])


class _Notices:
    """Change notices in memory, counting the reads of them."""

    def __init__(self) -> None:
        self.by_shard: dict[int, list[Notice]] = {s: [] for s in range(SHARDS)}
        self.reads = 0
        self.n = 0

    def add(self, shard: int, game_id: str, seq: int) -> Notice:
        self.n += 1
        notice = Notice(shard, f"{self.n}-0", game_id, seq)
        self.by_shard[shard].append(notice)
        return notice

    async def tail(self, shard: int) -> str:
        return self.by_shard[shard][-1].entry_id if self.by_shard[shard] else "0-0"

    async def tails(self, shards: Sequence[int]) -> list[str]:
        return [await self.tail(s) for s in shards]

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        self.reads += 1
        key = {s: int(a.split("-")[0]) for s, a in after.items()}
        out = [n for s, ns in self.by_shard.items() for n in ns if _number(n) > key[s]]
        if not out and block_ms:
            await asyncio.sleep(min(block_ms, 20) / 1000)
        return out[:count]

    async def changed_since(self, game_id: str, after: str, limit: int | None = None) -> None:
        return None


class _Fields:
    async def fields(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        return [{"seq": "1"} for _ in game_ids]


def idle_hub(block_ms: int) -> tuple[_Notices, LiveChanges, ChangeHub]:
    """Notices in memory, the live changes over them and a hub (not started) rendering each
    game as `{"game": id}`."""
    notices = _Notices()
    changes = LiveChanges(notices, _Fields(), SHARDS)
    hub = ChangeHub(changes, render=lambda game_id, fields: {"game": game_id}, block_ms=block_ms)
    return notices, changes, hub


async def test_an_unwatched_hub_reads_nothing_and_a_subscription_starts_at_the_tails() -> None:
    notices, changes, hub = idle_hub(20)
    await hub.start()
    try:
        shard = changes.shard_of("g1")
        for seq in range(1, 6):
            notices.add(shard, "g1", seq)
        await asyncio.sleep(0.1)
        assert notices.reads == 0  # nobody subscribed: not one read
        async with hub.subscribe("g1") as sub:
            assert hub.position("g1") == "5-0"  # the changes before it, as `current` reads
            later = notices.add(shard, "g1", 6)
            item = await asyncio.wait_for(sub.get(), 2)
            assert isinstance(item, Delivery)
            assert item.change == later
        await asyncio.sleep(0.1)  # the last read in flight ends; the reader idles again
        idle = notices.reads
        notices.add(shard, "g1", 7)
        await asyncio.sleep(0.1)
        assert notices.reads == idle
    finally:
        await hub.stop()
