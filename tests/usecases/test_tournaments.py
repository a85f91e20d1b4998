"""Tournament use cases on the in-memory log: appends carry the expected version and are
idempotent by event id, the organiser's token digest is kept, a rule breach appends nothing,
a concurrent append is retried, and seating the next round appends the engine's seating."""

from __future__ import annotations

import pytest

from contracts.tournament import (
    PlayerDropped,
    PlayerRegistered,
    RoundClosed,
    TableResultApproved,
    TableResultReported,
    TournamentCreated,
)
from domain.errors import RuleViolation
from domain.tournament.seating import greedy_round
from services.ports.errors import CredentialMismatch, VersionConflict
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.tournaments.simulator import table_result
from services.tournaments.usecases.stream import Tournaments, UnknownTournament
from tests.domain.tournament.stream import Stream

CREATED = TournamentCreated(title="Cup", game="penumbra", rounds=3, seating_seed=7)


async def _with_players(n: int) -> tuple[Tournaments, MemoryTournamentLog]:
    log = MemoryTournamentLog()
    cases = Tournaments(log)
    players = [PlayerRegistered(player_id=f"p{i}", name=f"P{i}") for i in range(n)]
    await cases.record("cup", [CREATED, *players], "organiser", credential="digest-1")
    return cases, log


async def test_the_log_checks_expected_version_and_drops_duplicate_ids() -> None:
    log = MemoryTournamentLog()
    s = Stream("cup").create().register("a", "b")
    first = await log.append("cup", s.events[:2])
    assert first.version == 2
    with pytest.raises(VersionConflict):
        await log.append("cup", [s.events[2].model_copy(update={"seq": 5})])
    again = await log.append("cup", s.events)  # the first two are duplicates
    assert [e.duplicate for e in again.events] == [True, True, False]
    assert (again.version, await log.version("cup")) == (3, 3)
    assert [e.seq for e in await log.read("cup")] == [1, 2, 3]


async def test_the_organisers_digest_is_stored_by_the_creating_append() -> None:
    cases, log = await _with_players(3)
    with pytest.raises(CredentialMismatch):
        await cases.record("cup", [PlayerRegistered(player_id="x", name="X")], "o", "other")
    await cases.record("cup", [PlayerRegistered(player_id="x", name="X")], "o", "digest-1")
    assert await log.version("cup") == 5


async def test_a_rule_breach_appends_nothing() -> None:
    cases, log = await _with_players(3)
    before = await log.version("cup")
    with pytest.raises(RuleViolation) as refused:
        await cases.record(
            "cup",
            [PlayerRegistered(player_id="y", name="Y"), PlayerDropped(player_id="zz", reason="r")],
            "o",
        )
    assert refused.value.rule == "tournament.unknown_player"
    assert await log.version("cup") == before


class _Racing:
    """A log whose first append loses to another writer that lands just before it."""

    def __init__(self, log: MemoryTournamentLog) -> None:
        self.log = log
        self.read = log.read
        self.version = log.version
        self.appends = 0

    async def append(self, tid, events, credential=None):  # type: ignore[no-untyped-def]
        self.appends += 1
        if self.appends == 1:
            await Tournaments(self.log).record(
                tid, [PlayerRegistered(player_id="r", name="R")], "other judge"
            )
        return await self.log.append(tid, events, credential)


async def test_a_concurrent_append_is_retried_on_the_new_version() -> None:
    _, log = await _with_players(3)
    racing = _Racing(log)
    await Tournaments(racing).record("cup", [PlayerRegistered(player_id="s", name="S")], "o")
    state = await Tournaments(log).state("cup")
    assert list(state.players)[-2:] == ["r", "s"]
    assert racing.appends == 2


async def test_seating_the_next_round_appends_the_seating_and_standings_follow() -> None:
    cases, _ = await _with_players(13)
    seating = await cases.seat_next_round("cup", "organiser")
    state = await cases.state("cup")
    assert [len(t.players) for t in state.rounds[0].tables.values()] == [4, 3, 3, 3]
    assert tuple(t.players for t in state.rounds[0].tables.values()) == seating.table_players
    for table in seating.tables:
        results = table_result("penumbra", 1, table.number, table.players)
        await cases.record(
            "cup",
            [
                TableResultReported(round=1, table=table.number, results=results, reported_by="t"),
                TableResultApproved(round=1, table=table.number, judge="j"),
            ],
            "judge",
        )
    await cases.record("cup", [RoundClosed(round=1)], "organiser")
    table = await cases.standings("cup")
    assert sum(line.games for line in table.lines) == 13
    assert sum(line.points.value for line in table.lines) == 7 + 5 + 3 + 1 + 3 * (7 + 4 + 1)
    before = await cases.standings("cup", at_seq=15)  # right after the seating
    assert all(line.points.value == 0 for line in before.lines)
    await cases.record("cup", [PlayerDropped(player_id="p0", reason="left")], "organiser")
    second = await cases.seat_next_round("cup", "organiser", method=greedy_round)
    assert "p0" not in {p for t in second.table_players for p in t}


async def test_an_unknown_tournament_is_named() -> None:
    with pytest.raises(UnknownTournament):
        await Tournaments(MemoryTournamentLog()).state("nope")
