"""Attacks on the idle change hub (docs/profiles/serve-round-trips.md: no reads while nobody subscribes, the
first subscription wakes the reader): subscriptions opened and closed many times while changes
are appended, some overlapping, some after an idle period. Each one's `position` covers every
change appended before it opened (the store's `current` reflects those), it is delivered
every later change (the newest of a batch: the body is the whole state) and never a change at
or before a position it was already given, in order.
Source: issue brief (live push); docs/profiles/hot-path-profiles.md."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Mapping, Sequence

import pytest

from services.doors.push.hub import ChangeHub, Delivery, StorageDown, entry_key
from services.ports.errors import StoreUnavailable
from services.ports.notices import Notice
from services.usecases.live_changes import LiveChanges
from tests.web.test_hub_idle import SHARDS, _Fields, _Notices, idle_hub


async def test_subscriptions_racing_appends_miss_nothing_and_repeat_nothing() -> None:
    notices, changes, hub = idle_hub(5)
    await hub.start()
    shard = changes.shard_of("g1")
    rng = random.Random(6278)
    stop = asyncio.Event()
    seqs = {"g1": 0, "g2": 0}

    def append(game_id: str) -> str:
        seqs[game_id] += 1
        return notices.add(changes.shard_of(game_id), game_id, seqs[game_id]).entry_id

    async def produce() -> None:
        while not stop.is_set():
            append(rng.choice(["g1", "g1", "g2"]))
            await asyncio.sleep(rng.uniform(0, 0.003))

    async def watch(cycles: int) -> int:
        opened = 0
        for _ in range(cycles):
            async with hub.subscribe("g1") as sub:
                opened += 1
                sent = hub.position("g1")
                assert entry_key(sent) <= entry_key(await notices.tail(shard))
                marker = append("g1")  # a change after the position: it must arrive
                delivered: list[str] = []
                while entry_key(sent) < entry_key(marker):
                    item = await asyncio.wait_for(sub.get(), 2)
                    if not isinstance(item, Delivery):
                        continue
                    assert item.change.game_id == "g1"
                    delivered.append(item.change.entry_id)
                    sent = max(sent, item.change.entry_id, key=entry_key)
                keys = [entry_key(d) for d in delivered]
                assert keys == sorted(set(keys)), delivered  # in order, none twice
            await asyncio.sleep(rng.choice([0, 0, 0.001, 0.03]))  # sometimes an idle period
        return opened

    producer = asyncio.create_task(produce())
    try:
        opened = await asyncio.gather(watch(40), watch(25), watch(15))
    finally:
        stop.set()
        await producer
        await hub.stop()
    assert sum(opened) == 80
    assert hub.subscriber_count == 0


async def test_a_position_from_before_the_idle_period_is_behind_the_new_one() -> None:
    """A client resuming with an id given before an idle period: the position after it is
    the shards' tail, so every change of the idle period is covered (by `current`), and a
    change after it is delivered."""
    notices, changes, hub = idle_hub(10)
    await hub.start()
    try:
        shard = changes.shard_of("g1")
        notices.add(shard, "g1", 1)
        async with hub.subscribe("g1") as sub:
            old = hub.position("g1")
        for seq in range(2, 6):  # nobody watching: the hub reads none of these
            notices.add(shard, "g1", seq)
        await asyncio.sleep(0.05)
        async with hub.subscribe("g1") as sub:
            now = hub.position("g1")
            assert entry_key(now) > entry_key(old)
            assert now == await notices.tail(shard)
            later = notices.add(shard, "g1", 6)
            item = await asyncio.wait_for(sub.get(), 2)
            assert isinstance(item, Delivery)
            assert item.change == later
    finally:
        await hub.stop()


class _Flaky(_Notices):
    """The notices of a store that can be taken down (`StoreUnavailable` on every read)."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def _answer(self) -> None:
        if self.down:
            raise StoreUnavailable("connection refused")

    async def tails(self, shards: Sequence[int]) -> list[str]:
        self._answer()
        return await super().tails(shards)

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        self._answer()
        return await super().read(after, count, block_ms)


async def test_a_store_blip_met_by_a_waking_hub_does_not_end_live_push_for_good() -> None:
    """A subscription wakes the idle hub while the store is down: the reader fails long enough
    to declare the store down (`fault`, every new stream refused by `check`). Once the store
    answers again the fault must clear, as it does when the reader follows the notices."""
    notices = _Flaky()
    changes = LiveChanges(notices, _Fields(), SHARDS)
    render = lambda game_id, fields: {"game": game_id}  # noqa: E731
    hub = ChangeHub(changes, render=render, block_ms=10, down_after_s=0.1)
    await hub.start()
    try:
        await asyncio.sleep(0.05)  # nobody subscribes: the reader idles
        notices.down = True
        with contextlib.suppress(TimeoutError, StoreUnavailable):
            async with asyncio.timeout(1.0), hub.subscribe("g1") as sub:
                while True:
                    await sub.get()  # StorageDown once the hub gives the store up
        with pytest.raises(StorageDown):
            hub.check()  # a new stream is refused while the store is down
        notices.down = False
        async with asyncio.timeout(8):
            while hub.fault is not None:  # the reader's back-off is at most 2 s
                await asyncio.sleep(0.05)
        hub.check()  # the next browser's stream starts
        async with hub.subscribe("g1") as sub:
            later = notices.add(changes.shard_of("g1"), "g1", 1)
            item = await asyncio.wait_for(sub.get(), 2)
            assert isinstance(item, Delivery)
            assert item.change == later
    finally:
        await hub.stop()
