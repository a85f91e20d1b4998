"""The catch-up pause of the cyclic collector (`services.runtime.gctune.CATCH_UP`).

The pause ends only at a read of the projector loop that is not full. A loop that stops
reading while paused (it lost every shard, or its reads fail while Redis is down) left the
collector off for as long as that lasted, in the projector and in `scoreledger serve` (whose
HTTP requests go on making garbage). And in `scoreledger serve` (`tune_for_long_life()`
without survivors: the deployed projector, deploy/compose.yaml `serve --projector`), the
cyclic garbage a pause leaves is frozen at its end and no collection of that process ever
sees it again (only `python -m services.cli.projector` runs `full_collections`).
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from services.adapters.redis import feeds as feeds_module
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.feeds import RedisShardFeeds
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.projections import RedisProjections
from services.doors.projector import loop as loop_module
from services.doors.projector.loop import ProjectorLoop
from services.ports.projections import START_ID
from services.runtime import gctune
from services.runtime.gctune import CatchUpPause, freeze_survivors, tune_for_long_life
from services.usecases.project import Applied

SHARDS = 4
KEYS = Keys(SHARDS)
GAME = "g0"
FEED = KEYS.feed(shard_of(GAME, SHARDS))


class NoViews:
    """The cached game states of `Instant`: none."""

    def kept_keys(self) -> list[str]:
        return []

    def drop(self, game_id: str) -> None:
        pass


class Instant:
    """A project use case that applies every entry at once."""

    def __init__(self) -> None:
        self.views = NoViews()

    async def apply(
        self, shard: int, entries: Any, malformed: Any = (), live: Any = None
    ) -> Applied:
        return Applied(len(entries), (entries or malformed)[-1].feed_id)

    def forget(self) -> None:
        pass


@pytest.fixture
def catch_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[CatchUpPause]:
    """A fresh pause, on as after `tune_for_long_life`, as the process's and the loop's; the
    test process collects as before afterwards."""
    pause = CatchUpPause()
    pause.enabled = True
    monkeypatch.setattr(gctune, "CATCH_UP", pause)
    monkeypatch.setattr(loop_module, "CATCH_UP", pause)
    before = gc.get_threshold()
    try:
        yield pause
    finally:
        while freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        gc.set_threshold(*before)
        gc.enable()
        gc.unfreeze()


async def paused_loop(client: RedisClient, pause: CatchUpPause) -> ProjectorLoop:
    """A loop over one shard whose first read came back full (batch 1): the collector is off."""
    for seq in (1, 2):
        await client.xadd(FEED, {"game": GAME, "seq": seq, "data": "{}"})
    projections = RedisProjections(client, KEYS)
    feeds = RedisShardFeeds(client, KEYS)
    loop = ProjectorLoop(feeds, SHARDS, Instant(), projections, batch=1, block_ms=10)  # type: ignore[arg-type]
    loop.positions[shard_of(GAME, SHARDS)] = START_ID
    assert await loop.step() == 1
    assert pause.paused
    assert not gc.isenabled()
    return loop


@pytest.mark.redis
async def test_a_loop_that_lost_every_shard_while_paused_collects_again(
    redis_client: RedisClient, catch_up: CatchUpPause
) -> None:
    loop = await paused_loop(redis_client, catch_up)
    await loop.lose(shard_of(GAME, SHARDS))  # reassigned: nothing left to read
    for _ in range(3):
        assert await loop.step() == 0
    print(f"after 3 idle steps: collector enabled {gc.isenabled()}, paused {catch_up.paused}")
    assert gc.isenabled()
    assert not catch_up.paused


@pytest.mark.redis
async def test_a_loop_whose_reads_fail_while_paused_collects_again(
    redis_client: RedisClient, catch_up: CatchUpPause, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = await paused_loop(redis_client, catch_up)
    failures = 0

    async def down(*args: Any, **kwargs: Any) -> Any:
        nonlocal failures
        failures += 1
        if failures >= 3:
            loop.stopping = True
        raise RedisConnectionError("Redis went away")

    monkeypatch.setattr(feeds_module, "read_feeds", down)
    loop._ahead.drop()  # the read-ahead of the full read: use the failing read
    await asyncio.wait_for(loop.run(), timeout=10)
    print(f"after {failures} failed reads: collector enabled {gc.isenabled()}")
    assert failures == 3
    assert gc.isenabled()


class _Node:
    """An object that can sit in a reference cycle and be watched by a weak reference."""

    me: object = None


def test_serve_with_other_roles_never_pauses_so_a_dropped_cycle_is_collected(
    catch_up: CatchUpPause,
) -> None:
    """`scoreledger serve` with a projector beside other roles: no pause (nothing there
    collects what a pause would freeze), so the cycle is garbage for the usual collector."""
    tune_for_long_life()  # what `scoreledger serve` runs unless it is a projector alone
    assert not catch_up.enabled
    catch_up.read(True)  # a projector role in the process is catching up
    assert gc.isenabled()
    cycle = _Node()
    cycle.me = cycle
    alive = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert alive() is None


async def test_a_projector_alone_pauses_and_collects_the_frozen_beside_it(
    catch_up: CatchUpPause, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --projector` alone (as deployed) and `python -m services.cli.projector`: survivors
    frozen, the pause on, and `full_collections` running beside the loop (the roles'
    lifespan enters `collecting_frozen`), which frees a cycle frozen by the pause."""
    monkeypatch.setattr(gctune, "FULL_EVERY_S", 0.05)
    monkeypatch.setattr(gctune.full_collections, "__defaults__", (0.05,))
    tune_for_long_life(survivors=True)
    assert catch_up.enabled
    catch_up.read(True)
    cycle = _Node()
    cycle.me = cycle
    alive = weakref.ref(cycle)
    del cycle
    catch_up.read(False)  # caught up: frozen
    gc.collect()
    assert alive() is not None  # frozen: the usual collector no longer sees it
    async with gctune.collecting_frozen():
        for _ in range(100):
            await asyncio.sleep(0.02)
            if alive() is None:
                break
    assert alive() is None
