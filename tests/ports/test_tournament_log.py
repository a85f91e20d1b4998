"""Both `TournamentLog` adapters held to one suite, and each wrapped in `NamedSideLog` (names
kept apart, read back as posted): expected version, all or nothing, idempotent event ids, the
organiser's digest stored by the creating append, reads by seq, the streams listed newest
first."""

from __future__ import annotations

import asyncio

import pytest

from services.adapters.redis.keys import Keys
from services.ports.errors import CredentialMismatch, VersionConflict
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.tournaments.ports.log import TournamentLog
from services.tournaments.usecases.stream import Tournaments
from tests.domain.tournament.stream import Stream
from tests.ports.conftest import SideBackend, side_log


@pytest.fixture
def log(side_backend: SideBackend) -> TournamentLog:
    from services.tournaments.adapters.redis import RedisTournamentLog

    return side_log(
        side_backend, MemoryTournamentLog, lambda client: RedisTournamentLog(client, Keys(4))
    )


async def test_appends_check_the_expected_version_all_or_nothing(log: TournamentLog) -> None:
    s = Stream("cup").create().register("a", "b", "c")
    assert (await log.append("cup", s.events[:2])).version == 2
    bad = [s.events[2], s.events[3].model_copy(update={"seq": 9})]
    with pytest.raises(VersionConflict) as conflict:
        await log.append("cup", bad)
    assert (conflict.value.expected, conflict.value.actual) == (8, 3)
    assert await log.version("cup") == 2  # nothing of the batch written
    result = await log.append("cup", s.events)
    assert [(e.seq, e.duplicate) for e in result.events] == [
        (1, True), (2, True), (3, False), (4, False),
    ]  # fmt: skip
    read = await log.read("cup", 2, 3)
    assert [e.seq for e in read] == [2, 3]
    assert all(e.recorded_at is not None for e in read)
    assert read[0] == s.events[1].model_copy(update={"recorded_at": read[0].recorded_at})
    with pytest.raises(ValueError, match=r"tournament_id: event .* is for cup"):
        await log.append("other", s.events[:1])
    assert await log.version("other") == 0


async def test_the_creating_append_stores_the_organisers_digest(log: TournamentLog) -> None:
    s = Stream("cup").create().register("a")
    assert await log.digest("cup") is None
    await log.append("cup", s.events[:1], credential="d1")
    assert await log.digest("cup") == "d1"
    with pytest.raises(CredentialMismatch):
        await log.append("cup", s.events[1:], credential="d2")
    assert (await log.append("cup", s.events[1:], credential="d1")).version == 2


async def test_the_use_cases_run_on_the_adapter(log: TournamentLog) -> None:
    s = Stream("cup").create().register(*[f"p{i}" for i in range(7)])
    await log.append("cup", s.events)
    cases = Tournaments(log)
    seating = await cases.seat_next_round("cup", "organiser")
    assert sorted(len(t) for t in seating.table_players) == [3, 4]
    assert len((await cases.state("cup")).rounds) == 1
    assert await log.read("other") == []


async def test_streams_lists_each_created_stream_once_newest_first(log: TournamentLog) -> None:
    assert await log.streams(10) == []
    for tid in ("one", "two", "three"):
        events = Stream(tid).create().register("a", "b", "c").events
        await log.append(tid, events[:1])
        await log.append(tid, events[:1])  # a duplicate creating append lists nothing again
        await log.append(tid, events[1:])
        await asyncio.sleep(0.002)  # the Redis index orders by creation ms
    assert await log.streams(10) == ["three", "two", "one"]
    assert await log.streams(2) == ["three", "two"]
