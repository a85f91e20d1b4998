"""Tables are scoreledger games: a table's result comes from its game's final standings; a
referee's correction or void in the game changes the tournament standings (and a replay shows
both); reopening the game holds the table out; reported results are auto-approved after the
configured time."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from contracts.envelope import Envelope
from contracts.events import parse_event
from contracts.tournament import (
    PlayerRegistered,
    RoundClosed,
    TableResultApproved,
    TableResultDisputed,
    TournamentCreated,
    TournamentEnvelope,
)
from domain.errors import RuleViolation
from domain.tournament.fold import fold
from domain.tournament.state import TournamentState
from services.simulator.tables import simulate_game
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.tournaments.usecases.stream import Tournaments

SEED = 5


def _game_id(round_: int, table: int) -> str:
    return f"pe-{SEED}-{round_ * 10 + table}"


def _referee(game: list[Envelope], type_: str, payload: dict[str, Any]) -> Envelope:
    last = game[-1]
    return parse_event(
        {
            "event_id": str(uuid.uuid4()),
            "game_id": last.game_id,
            "seq": last.seq + 1,
            "type": type_,
            "schema_version": 2 if type_ == "game.score_corrected" else 1,
            "occurred_at": "2026-12-01T12:00:00Z",
            "actor": "referee",
            "payload": payload,
        }
    )


async def _round_one(**settings: Any) -> tuple[Tournaments, dict[int, list[Envelope]]]:
    cases = Tournaments(MemoryTournamentLog())
    created = TournamentCreated(title="Cup", game="penumbra", rounds=2, **settings)
    players = [PlayerRegistered(player_id=f"p{i}", name=f"P{i}") for i in range(8)]
    await cases.record("cup", [created, *players], "organiser")
    seating = await cases.seat_next_round("cup", "organiser", game_ids=_game_id)
    games = {
        t.number: list(simulate_game("penumbra", SEED, 10 + t.number, players=4))
        for t in seating.tables
    }
    return cases, games


async def test_a_correction_and_its_void_in_a_tables_game_move_the_tournament_standings() -> None:
    cases, games = await _round_one()
    for number, events in games.items():
        assert await cases.result_from_game("cup", 1, number, events) == "reported"
        await cases.record("cup", [TableResultApproved(round=1, table=number, judge="j")], "judge")
    await cases.record("cup", [RoundClosed(round=1)], "organiser")
    state = await cases.state("cup")
    table = state.rounds[0].tables[1]
    last = next(r.player_id for r in table.approved or () if r.place == 4)
    before = await cases.standings("cup")
    seq_before = before.seq
    assert {x.player_id: x.points.value for x in before.lines}[last] == 1
    # The referee gives the table's last player 500 VP: they win the table.
    game = games[1]
    seat = table.players.index(last) + 1
    sim_player = next(p.player_id for p in game[0].payload.players if p.seat == seat)  # type: ignore[attr-defined]
    correction = _referee(
        game,
        "game.score_corrected",
        {"player_id": sim_player, "amount": 500, "reason": "recount", "referee": "Ref"},
    )
    game.append(correction)
    assert await cases.result_from_game("cup", 1, 1, game) == "approved"
    after = await cases.standings("cup")
    assert {x.player_id: x.points.value for x in after.lines}[last] == 7
    # The void of that correction puts the table back as it was.
    void = _referee(
        game,
        "game.event_voided",
        {"voided_event_id": str(correction.event_id), "reason": "wrong table", "referee": "Ref"},
    )
    game.append(void)
    assert await cases.result_from_game("cup", 1, 1, game) == "approved"
    voided = await cases.standings("cup")
    assert {x.player_id: x.points.value for x in voided.lines}[last] == 1
    # A replay shows both: before and after the correction.
    replay = await cases.standings("cup", at_seq=seq_before + 1)
    assert {x.player_id: x.points.value for x in replay.lines}[last] == 7
    assert {
        x.player_id: x.points.value for x in (await cases.standings("cup", at_seq=seq_before)).lines
    }[last] == 1
    assert await cases.result_from_game("cup", 1, 1, game) == "unchanged"


async def test_reopening_a_tables_game_holds_the_table_out() -> None:
    cases, games = await _round_one(auto_approve_after_s=0)
    for number, events in games.items():
        assert await cases.result_from_game("cup", 1, number, events) == "approved"
    game = games[2]
    ended = next(e for e in game if e.type == "game.ended")
    game.append(
        _referee(
            game,
            "game.event_voided",
            {
                "voided_event_id": str(ended.event_id),
                "reason": "not over",
                "referee": "Ref",
                "reopens_game": True,
            },
        )
    )
    assert await cases.result_from_game("cup", 1, 2, game) == "held"
    table = await cases.standings("cup")
    assert table.held == ((1, 2, "disputed"),)
    assert sum(line.games for line in table.lines) == 4


async def test_another_games_log_is_refused_for_a_table() -> None:
    cases, games = await _round_one()
    with pytest.raises(RuleViolation) as refused:
        await cases.result_from_game("cup", 1, 1, games[2])
    assert refused.value.rule == "tournament.wrong_game"


async def test_reported_results_are_auto_approved_after_the_configured_time() -> None:
    clock = [datetime(2026, 12, 1, 10, 0, tzinfo=UTC)]
    cases, games = await _round_one(auto_approve_after_s=300)
    cases.now = lambda: clock[0]
    assert await cases.result_from_game("cup", 1, 1, games[1]) == "reported"
    clock[0] += timedelta(seconds=299)
    assert await cases.approve_due("cup") == []
    clock[0] += timedelta(seconds=1)
    assert await cases.approve_due("cup") == [(1, 1)]
    state = await cases.state("cup")
    assert state.rounds[0].tables[1].status == "approved"


class _SlowReads(MemoryTournamentLog):
    """Reads that yield first, so two callers both read before either appends."""

    async def read(
        self, stream_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[TournamentEnvelope]:
        await asyncio.sleep(0.01)
        return await super().read(stream_id, from_seq, to_seq)


async def test_two_callers_syncing_the_same_game_append_one_report() -> None:
    """The game door's follow-up and a hand sync (`result-from-game`) racing on one game: one
    `table_result_reported` in the log (the second is a duplicate by its derived id), where
    before both were appended."""
    cases, games = await _round_one()
    cases = Tournaments(_SlowReads(), now=cases.now)
    created = TournamentCreated(title="Cup", game="penumbra", rounds=2)
    players = [PlayerRegistered(player_id=f"p{i}", name=f"P{i}") for i in range(8)]
    await cases.record("cup", [created, *players], "organiser")
    await cases.seat_next_round("cup", "organiser", game_ids=_game_id)
    answers = await asyncio.gather(
        cases.result_from_game("cup", 1, 1, games[1]),
        cases.result_from_game("cup", 1, 1, games[1]),
    )
    assert list(answers) == ["reported", "reported"]
    events = await cases.log.read("cup")
    reports = [e for e in events if e.type == "tournament.table_result_reported"]
    assert len(reports) == 1
    assert await cases.result_from_game("cup", 1, 1, games[1]) == "unchanged"


async def test_an_auto_approval_racing_a_dispute_leaves_the_table_disputed() -> None:
    """A tablemate disputes after the auto-approval read the table as reported and before it
    appended: the dispute holds the table out until a judge approves (docs/tournament-rules.md),
    so the auto-approval approves nothing, where before it approved over the dispute."""
    clock = [datetime(2026, 12, 1, 10, 0, tzinfo=UTC)]
    cases, games = await _round_one(auto_approve_after_s=300)
    cases.now = lambda: clock[0]
    assert await cases.result_from_game("cup", 1, 1, games[1]) == "reported"
    clock[0] += timedelta(seconds=300)
    seen = await cases.state("cup")  # what the auto-approval read: table 1 reported, due
    dispute = TableResultDisputed(round=1, table=1, by="p0", reason="my score is wrong")
    await cases.record("cup", [dispute], "p0")

    async def read_before_the_dispute(tid: str, at_seq: int | None = None) -> TournamentState:
        return seen

    cases.state = read_before_the_dispute  # type: ignore[method-assign,assignment]
    assert await cases.approve_due("cup") == []
    table = fold(await cases.log.read("cup")).rounds[0].tables[1]
    assert table.status == "disputed"
    assert table.approved is None
