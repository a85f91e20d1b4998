"""Auto-approval on a timer: a reported table result is approved once its
`auto_approve_after_s` has passed, by `ApprovalTimer.tick` alone (nobody writes to the
tournament); the round closes with its last table; two timers racing append each approval
once; a claimed entry not settled comes back after the lease; the room's SSE shows the
approval. The clock is the use case's (`Tournaments.now`), moved by hand."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from contracts.envelope import Envelope
from contracts.tournament import (
    PlayerRegistered,
    RoundClosed,
    TableResultApproved,
    TableResultReported,
    TournamentCreated,
)
from services.simulator.tables import simulate_game
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.tournaments.adapters.memory_approvals import MemoryApprovalSchedule
from services.tournaments.doors.ingest_approvals import approving
from services.tournaments.doors.push import TournamentWatch
from services.tournaments.ports.approvals import ApprovalSchedule, DueEntry
from services.tournaments.usecases.stream import Tournaments
from services.tournaments.usecases.timer import ApprovalTimer

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
T0_MS = 1_796_119_200_000  # T0 in epoch ms: (20_788 days * 86_400 + 36_000 s) * 1000
WAIT_S = 300


class Clock:
    """A clock moved by hand."""

    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at

    def move(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


async def _round_one(
    clock: Clock, schedule: ApprovalSchedule, log: MemoryTournamentLog | None = None, **kw: Any
) -> tuple[Tournaments, dict[int, list[Envelope]]]:
    """Tournament `cup` (8 players, 2 tables, `auto_approve_after_s` 300 unless given), round 1
    seated; the two tables' games, played to the end by the simulator."""
    cases = Tournaments(log or MemoryTournamentLog(), clock, schedule=schedule)
    settings: dict[str, Any] = {"auto_approve_after_s": WAIT_S, **kw}
    created = TournamentCreated(title="Cup", game="penumbra", rounds=2, **settings)
    players = [PlayerRegistered(player_id=f"p{i}", name=f"P{i}") for i in range(8)]
    await cases.record("cup", [created, *players], "organiser", "digest-of-cup")

    def game_id(r: int, t: int) -> str:
        return f"pe-5-{r * 10 + t}"

    seating = await cases.seat_next_round("cup", "organiser", "digest-of-cup", game_ids=game_id)
    games = {
        t.number: list(simulate_game("penumbra", 5, 10 + t.number, players=4))
        for t in seating.tables
    }
    return cases, games


def _count(events: list[Any], kind: type) -> int:
    return sum(isinstance(e.payload, kind) for e in events)


async def test_a_report_is_approved_by_the_timer_once_its_window_passed() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule)
    timer = ApprovalTimer(cases, schedule)
    assert await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup") == "reported"
    # reported at T0: due at T0 + 300 s
    assert schedule.entries == {f"{T0_MS + 300_000}:cup": T0_MS + 300_000}
    clock.move(299.999)
    tick = await timer.tick()
    assert (tick.claimed, tick.approved) == (0, ())
    clock.move(0.001)
    tick = await timer.tick()
    assert (tick.claimed, tick.approved, tick.failed) == (1, (("cup", 1, 1),), ())
    state = await cases.state("cup")
    assert state.rounds[0].tables[1].status == "approved"
    assert state.rounds[0].tables[2].status == "seated"
    assert not state.rounds[0].closed  # table 2 has no result yet
    assert schedule.entries == {}
    assert (await timer.tick()).claimed == 0


async def test_the_last_table_approved_by_the_timer_closes_the_round() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule)
    timer = ApprovalTimer(cases, schedule)
    await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup")
    clock.move(100)
    await cases.result_from_game("cup", 1, 2, games[2], "digest-of-cup")
    clock.move(200)  # table 1 due (300 s), table 2 not (200 s)
    assert (await timer.tick()).approved == (("cup", 1, 1),)
    assert not (await cases.state("cup")).rounds[0].closed
    clock.move(100)
    assert (await timer.tick()).approved == (("cup", 1, 2),)
    events = await cases.log.read("cup")
    assert isinstance(events[-1].payload, RoundClosed)  # same append as the last approval
    assert (await cases.state("cup")).rounds[0].closed


async def test_a_table_a_judge_approved_first_leaves_the_timer_nothing_to_do() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule)
    await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup")
    judge = TableResultApproved(round=1, table=1, judge="j1")
    await cases.record("cup", [judge], "j1", "digest-of-cup")
    clock.move(WAIT_S)
    tick = await ApprovalTimer(cases, schedule).tick()
    assert (tick.claimed, tick.approved) == (1, ())
    assert _count(await cases.log.read("cup"), TableResultApproved) == 1
    assert schedule.entries == {}  # settled: nothing comes back


async def test_no_auto_approval_schedules_nothing() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule, auto_approve_after_s=None)
    assert await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup") == "reported"
    assert schedule.entries == {}


class YieldingLog(MemoryTournamentLog):
    """The memory log, giving the event loop a turn before each read and append (as a
    network store does), so two racing timers interleave."""

    async def read(self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None) -> Any:
        await asyncio.sleep(0)
        return await super().read(tournament_id, from_seq, to_seq)

    async def append(self, tournament_id: str, events: Any, credential: str | None = None) -> Any:
        await asyncio.sleep(0)
        return await super().append(tournament_id, events, credential)


async def test_two_timers_racing_append_each_approval_once() -> None:
    # Two processes: their own use cases over one log; each was handed the same entries (a
    # lease that ran out while the first still worked), so both approve the same tables.
    clock, log = Clock(), YieldingLog()
    first, second = MemoryApprovalSchedule(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, first, log)
    await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup")
    await cases.result_from_game("cup", 1, 2, games[2], "digest-of-cup")
    second.entries = dict(first.entries)
    clock.move(WAIT_S)
    other = Tournaments(log, clock, schedule=second)
    ticks = await asyncio.gather(
        ApprovalTimer(cases, first).tick(), ApprovalTimer(other, second).tick()
    )
    assert all(t.failed == () for t in ticks)
    # each approval is named by the one timer whose append wrote it
    assert sorted(a for t in ticks for a in t.approved) == [("cup", 1, 1), ("cup", 1, 2)]
    events = await log.read("cup")
    assert _count(events, TableResultApproved) == 2
    assert _count(events, RoundClosed) == 1
    assert first.entries == second.entries == {}


async def test_an_entry_claimed_but_not_settled_comes_back_after_the_lease() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule)
    await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup")
    clock.move(WAIT_S)
    now_ms = T0_MS + WAIT_S * 1000
    # a process claims it and dies before approving
    assert await schedule.claim(now_ms, 10, 30_000) == [DueEntry("cup", now_ms)]
    timer = ApprovalTimer(cases, schedule, lease_s=30)
    clock.move(29.999)
    assert (await timer.tick()).claimed == 0
    clock.move(0.001)
    assert (await timer.tick()).approved == (("cup", 1, 1),)


async def test_a_tick_takes_at_most_its_batch() -> None:
    schedule = MemoryApprovalSchedule()
    for n in range(5):
        await schedule.schedule(DueEntry(f"t{n}", 1000 + n))
    await schedule.schedule(DueEntry("t0", 1000))  # the same entry again: still one
    assert len(schedule.entries) == 5
    claimed = await schedule.claim(2000, 3, 500)
    assert [e.tournament_id for e in claimed] == ["t0", "t1", "t2"]
    assert [e.tournament_id for e in await schedule.claim(2100, 3, 500)] == ["t3", "t4"]
    assert await schedule.claim(2499, 3, 500) == []
    assert len(await schedule.claim(2500, 10, 500)) == 3  # t0..t2's lease is over, not t3's


async def test_the_room_sse_shows_the_timers_approval() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule)
    await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup")
    watch = TournamentWatch(cases, poll_s=0.02)
    async with watch.subscribe("cup") as frames:
        first = await watch.render("cup")
        assert _status(first.data) == "reported"
        clock.move(WAIT_S)
        await ApprovalTimer(cases, schedule).tick()
        async with asyncio.timeout(30):  # generous: the poll is 20 ms
            frame = await frames.get()
            while frame.seq <= first.seq:
                frame = await frames.get()
    assert frame.seq == first.seq + 1
    assert _status(frame.data) == "approved"


async def test_the_timer_task_approves_without_any_write() -> None:
    clock, schedule = Clock(), MemoryApprovalSchedule()
    cases, games = await _round_one(clock, schedule)
    await cases.result_from_game("cup", 1, 1, games[1], "digest-of-cup")
    clock.move(WAIT_S)
    async with approving(ApprovalTimer(cases, schedule), every_s=0.01):
        async with asyncio.timeout(30):  # generous polling, no tight wall-clock assert
            while (await cases.state("cup")).rounds[0].tables[1].status != "approved":
                await asyncio.sleep(0.02)
    assert schedule.entries == {}


def _status(data: bytes) -> str:
    """Round 1 table 1's status in an SSE frame."""
    line = next(x for x in data.decode().splitlines() if x.startswith("data:"))
    body = json.loads(line.removeprefix("data:"))
    status: str = body["tournament"]["rounds"][0]["tables"][0]["status"]
    return status


async def test_the_composition_root_schedules_reports_and_runs_the_timer() -> None:
    # As `serve` wires it (ingest role): the tournaments use case schedules each report in
    # the ports' schedule and the timer started beside the routes approves it, on the real
    # clock (a 1 s window; polled with a generous deadline).
    from contextlib import AsyncExitStack

    from services.adapters.redis.keys import Keys
    from services.bootstrap import Service, _enter_approvals, memory_ports, use_cases
    from services.platform.settings import ServiceSettings

    settings = ServiceSettings(approval_every_s=0.05)
    ports = memory_ports(4)
    cases = use_cases(ports, settings)
    service = Service(settings, None, Keys(4), ports, cases)  # type: ignore[arg-type]
    created = TournamentCreated(title="Cup", game="penumbra", rounds=1, auto_approve_after_s=1)
    players = [PlayerRegistered(player_id=f"p{i}", name=f"P{i}") for i in range(4)]
    await cases.tournaments.record("cup", [created, *players], "organiser", "d")
    await cases.tournaments.seat_next_round("cup", "organiser", "d")
    table = (await cases.tournaments.state("cup")).rounds[0].tables[1]
    results = [
        {"player_id": p, "place": i, "score": 50 - 10 * i} for i, p in enumerate(table.players, 1)
    ]
    report = TableResultReported.model_validate(
        {"round": 1, "table": 1, "results": results, "reported_by": "p0"}
    )
    await cases.tournaments.record("cup", [report], "p0", "d")
    assert isinstance(ports.approvals, MemoryApprovalSchedule)
    assert len(ports.approvals.entries) == 1
    async with AsyncExitStack() as stack:
        await _enter_approvals(stack, service)
        async with asyncio.timeout(60):
            while not (await cases.tournaments.state("cup")).rounds[0].closed:
                await asyncio.sleep(0.05)
    state = await cases.tournaments.state("cup")
    assert state.rounds[0].tables[1].status == "approved"
    assert ports.approvals.entries == {}
