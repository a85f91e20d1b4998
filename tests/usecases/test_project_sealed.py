"""The projector meets feed entries of a game sealed into the archive since they were written
(docs/decisions/0013-archive-cold-tier.md): with live projection the standings can be ahead of
the shard's checkpoint (docs/decisions/0004-projector-catch-up-subscription.md), so a final game
can be sealed, and its keys removed from Redis, while its entries still wait in the feed (a
projector down, paused or lagging past `SCORELEDGER_ARCHIVE_AFTER_S`). Its entries must not
bring a projection back into Redis (folded without the names that left with the game, read
before the archive's) nor hold the game (its earlier events are not in Redis to fold)."""

from __future__ import annotations

from typing import Any

from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.keys import shard_of
from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import game_log

SHARDS = 4


def _sealed(backend: MemoryBackend, game_id: str) -> None:
    """The game's hot keys removed, as `HotGames.remove` does after a seal."""
    for table in (backend.logs, backend.ids, backend.digests, backend.projections, backend.names):
        table.pop(game_id, None)


async def _caught_up(first: int) -> tuple[Any, MemoryBackend]:
    ports = memory_ports(SHARDS)
    project = use_cases(ports, ServiceSettings(shards=SHARDS)).project
    backend: MemoryBackend = ports.log.b  # type: ignore[attr-defined]
    await ports.log.append("g1", game_log("g1", 9, seed=2))
    shard = shard_of("g1", SHARDS)
    entries = list(backend.feeds[shard])
    if first > 1:  # the earlier entries applied before the projector stopped
        await project.apply(shard, entries[: first - 1])
    _sealed(backend, "g1")
    project = use_cases(ports, ServiceSettings(shards=SHARDS)).project  # restarted: no cache
    applied = await project.apply(shard, entries[first - 1 :])
    assert applied.last_feed_id == entries[-1].feed_id  # the checkpoint moves past them
    return ports, backend


async def test_entries_of_a_sealed_game_write_no_projection() -> None:
    ports, backend = await _caught_up(first=1)
    assert await ports.projections.get("g1") is None
    assert backend.letters == []


async def test_entries_of_a_sealed_game_hold_nothing() -> None:
    ports, backend = await _caught_up(first=5)
    assert backend.letters == []
    assert await ports.projections.get("g1") is None
