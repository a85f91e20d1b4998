"""The tournament SSE's watch on the memory adapters: one poller per watched tournament hands
each change's frame to every subscriber (newest only for one that has not read the last),
stops when the last subscriber leaves, and refuses a tournament past `max_tournaments`."""

from __future__ import annotations

import asyncio
import json

import pytest

from contracts.tournament import PlayerRegistered, TournamentCreated
from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.tournaments.doors.push import TournamentWatch, WatchFull
from services.tournaments.usecases.stream import Tournaments


async def _tournaments(*ids: str) -> Tournaments:
    cases = use_cases(memory_ports(4), ServiceSettings()).tournaments
    for tid in ids:
        created = TournamentCreated(title=tid, game="penumbra", rounds=2)
        await cases.record(tid, [created], "organiser", "digest")
    return cases


def _data(frame: bytes) -> dict[str, object]:
    line = next(x for x in frame.decode().splitlines() if x.startswith("data: "))
    return dict(json.loads(line.removeprefix("data: ")))


async def test_each_change_reaches_every_subscriber_once_rendered() -> None:
    cases = await _tournaments("cup")
    watch = TournamentWatch(cases, poll_s=0.05)
    async with watch.subscribe("cup") as one, watch.subscribe("cup") as two:
        first = await watch.render("cup")
        assert first.seq == 1
        assert b"event: tournament" in first.data
        assert b"id: 1" in first.data
        await cases.record("cup", [PlayerRegistered(player_id="p1", name="A")], "o", "digest")
        async with asyncio.timeout(20):
            a, b = await one.get(), await two.get()
        assert a is b  # rendered once, the same bytes for both
        assert a.seq == 2
        players = _data(a.data)["tournament"]["players"]  # type: ignore[index]
        assert [p["player_id"] for p in players] == ["p1"]
        # two changes while `one` is not read: it holds only the newest
        await cases.record("cup", [PlayerRegistered(player_id="p2", name="B")], "o", "digest")
        async with asyncio.timeout(20):
            assert (await two.get()).seq == 3
        await cases.record("cup", [PlayerRegistered(player_id="p3", name="C")], "o", "digest")
        async with asyncio.timeout(20):
            assert (await two.get()).seq == 4
        assert one.qsize() == 1
        assert one.get_nowait().seq == 4
    assert not watch.full_for("other")
    assert watch._watched == {}  # the poller stopped with its last subscriber


async def test_more_tournaments_than_the_bound_are_refused() -> None:
    cases = await _tournaments("a", "b")
    watch = TournamentWatch(cases, poll_s=0.05, max_tournaments=1)
    async with watch.subscribe("a"):
        assert watch.full_for("b")
        assert not watch.full_for("a")  # a second viewer of a watched one is fine
        with pytest.raises(WatchFull):
            async with watch.subscribe("b"):
                pass
        async with watch.subscribe("a"):
            pass
    async with watch.subscribe("b"):  # free again
        pass


async def test_a_forgotten_player_reaches_every_screen_without_a_new_event() -> None:
    # A forget changes no version; the names stamp (HLEN of the kept names) moves instead, so
    # the poller renders again: subscribers get the same seq with the pseudonym, and a new
    # subscriber's first frame is never the cached one with the name.
    all_cases = use_cases(memory_ports(4), ServiceSettings())
    cases = all_cases.tournaments
    created = TournamentCreated(title="cup", game="penumbra", rounds=2)
    await cases.record("cup", [created], "organiser", "digest")
    joined = PlayerRegistered(player_id="p1", name="Alma Nováková")
    await cases.record("cup", [joined], "o", "digest")
    watch = TournamentWatch(cases, poll_s=0.05)
    async with watch.subscribe("cup") as screen:
        async with asyncio.timeout(20):
            named = await screen.get()
        assert "Alma" in named.data.decode()
        assert all_cases.forget is not None
        await all_cases.forget.forget_tournament("cup", "p1")
        async with asyncio.timeout(20):
            hidden = await screen.get()
        assert hidden.seq == named.seq == 2
        assert hidden.newer_than(named.seq, named.stamp)
        players = _data(hidden.data)["tournament"]["players"]  # type: ignore[index]
        assert [p["name"] for p in players] == ["player-1"]
        assert "Alma" not in (await watch.render("cup")).data.decode()
