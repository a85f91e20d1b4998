"""Both `ApprovalSchedule` adapters held to one suite (one entry per (tournament, due time),
claims earliest first, bounded, leased), and the timer on Redis end to end: a report's
approval lands when its window passed, with nobody writing to the tournament."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from contracts.tournament import (
    PlayerRegistered,
    RoundClosed,
    TableResultApproved,
    TableResultReported,
    TournamentCreated,
)
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.tournaments.adapters.memory_approvals import MemoryApprovalSchedule
from services.tournaments.ports.approvals import ApprovalSchedule, DueEntry
from services.tournaments.usecases.stream import Tournaments
from services.tournaments.usecases.timer import ApprovalTimer


@pytest.fixture
def schedule(redis_or_memory: RedisClient | None) -> ApprovalSchedule:
    if redis_or_memory is None:
        return MemoryApprovalSchedule()
    from services.tournaments.adapters.redis_approvals import RedisApprovalSchedule

    return RedisApprovalSchedule(redis_or_memory, Keys(4))


async def test_claims_are_earliest_first_bounded_and_leased(schedule: ApprovalSchedule) -> None:
    for n in (3, 1, 2):
        await schedule.schedule(DueEntry(f"cup-{n}", 1000 + n))
    await schedule.schedule(DueEntry("cup-1", 1001))  # again: still one entry
    await schedule.schedule(DueEntry("late", 5000))
    assert await schedule.claim(1000, 10, 500) == []  # nothing due before 1001
    first = await schedule.claim(1002, 10, 500)
    assert first == [DueEntry("cup-1", 1001), DueEntry("cup-2", 1002)]
    assert await schedule.claim(1100, 1, 500) == [DueEntry("cup-3", 1003)]  # at most 1
    assert await schedule.claim(1501, 10, 500) == []  # leased: cup-1, 2 till 1502, 3 till 1600
    assert await schedule.claim(1502, 10, 500) == first  # the lease ran out
    await schedule.done([*first, DueEntry("never", 1)])
    assert await schedule.claim(4999, 10, 500) == [DueEntry("cup-3", 1003)]
    await schedule.schedule(DueEntry("cup-3", 1003))  # a leased entry keeps its lease
    assert await schedule.claim(5000, 10, 500) == [DueEntry("late", 5000)]


async def test_two_claimers_never_share_an_entry(schedule: ApprovalSchedule) -> None:
    for n in range(20):
        await schedule.schedule(DueEntry(f"t{n:02}", 100))
    a, b = await asyncio.gather(schedule.claim(200, 12, 1000), schedule.claim(200, 12, 1000))
    assert len(a) + len(b) == 20
    assert not {e.member for e in a} & {e.member for e in b}


@pytest.mark.redis
async def test_the_timer_approves_on_redis_with_nobody_writing(redis_client: RedisClient) -> None:
    from services.tournaments.adapters.redis import RedisTournamentLog
    from services.tournaments.adapters.redis_approvals import RedisApprovalSchedule

    keys = Keys(4)
    clock = [datetime(2026, 12, 1, 10, 0, tzinfo=UTC)]
    schedule = RedisApprovalSchedule(redis_client, keys)
    cases = Tournaments(RedisTournamentLog(redis_client, keys), lambda: clock[0], schedule=schedule)
    created = TournamentCreated(title="Cup", game="penumbra", rounds=1, auto_approve_after_s=60)
    players = [PlayerRegistered(player_id=f"p{i}", name=f"P{i}") for i in range(4)]
    await cases.record("cup", [created, *players], "organiser", "d")
    await cases.seat_next_round("cup", "organiser", "d")
    table = (await cases.state("cup")).rounds[0].tables[1]
    results = [
        {"player_id": p, "place": i, "score": 50 - 10 * i} for i, p in enumerate(table.players, 1)
    ]
    report = TableResultReported.model_validate(
        {"round": 1, "table": 1, "results": results, "reported_by": "p0"}
    )
    await cases.record("cup", [report], "p0", "d")
    # two processes: each its own use cases and timer over the same Redis
    other = Tournaments(RedisTournamentLog(redis_client, keys), lambda: clock[0], schedule=schedule)
    timers = [ApprovalTimer(cases, schedule), ApprovalTimer(other, schedule)]
    clock[0] += timedelta(seconds=59)
    assert [t.claimed for t in await asyncio.gather(*(t.tick() for t in timers))] == [0, 0]
    clock[0] += timedelta(seconds=1)
    ticks = await asyncio.gather(*(t.tick() for t in timers))
    assert sorted(t.approved for t in ticks) == [(), (("cup", 1, 1),)]
    events = await cases.log.read("cup")
    assert [type(e.payload) for e in events[-2:]] == [TableResultApproved, RoundClosed]
    assert await redis_client.zcard(keys.approval_schedule()) == 0
