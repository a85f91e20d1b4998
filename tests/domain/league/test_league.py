"""League fold, standings (all and best N) and rating history against hand-computed values;
a toy rating model makes every step checkable by hand, openskill is checked on a case whose
answer follows from symmetry."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from contracts.envelope import Payload
from contracts.league import (
    GameAdded,
    LeagueCreated,
    LeagueEnvelope,
    LeaguePlayer,
    LeagueTable,
    TournamentAdded,
    TournamentPoints,
    parse_league_event,
)
from contracts.tournament import ResultLine
from domain.errors import RuleViolation
from domain.league.fold import fold
from domain.league.ratings import Rating, rating_history
from domain.league.standings import league_standings
from services.leagues.usecases.rating import OpenSkillModel


class Toy:
    """mu moves by (players + 1 - 2 x place): 3 players: +2, 0, -2; sigma stays 1."""

    def initial(self) -> Rating:
        return Rating(25.0, 1.0)

    def rate(self, before: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
        n = len(before)
        return [Rating(r.mu + n + 1 - 2 * p, r.sigma) for r, p in zip(before, places, strict=True)]


def league_event(seq: int, payload: Payload, league_id: str = "club") -> LeagueEnvelope:
    """Event `seq` of league `league_id` carrying `payload`, parsed from its wire form (the
    event id derived from league and seq, so the same call is the same event)."""
    raw: dict[str, Any] = {
        "event_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{league_id}/{seq}")),
        "league_id": league_id,
        "seq": seq,
        "type": payload.TYPE,
        "schema_version": 1,
        "occurred_at": "2026-12-01T10:00:00Z",
        "actor": "organiser",
        "payload": payload.model_dump(mode="json"),
    }
    return parse_league_event(raw)


def _events(*payloads: Payload) -> list[LeagueEnvelope]:
    return [league_event(seq, payload) for seq, payload in enumerate(payloads, start=1)]


def _lines(*lines: tuple[str, int, int]) -> tuple[ResultLine, ...]:
    return tuple(ResultLine(player_id=p, place=pl, score=s) for p, pl, s in lines)


def _players(*ids: str) -> tuple[LeaguePlayer, ...]:
    return tuple(LeaguePlayer(player_id=p, name=p.upper()) for p in ids)


CUP = TournamentAdded(
    tournament_id="cup",
    title="Cup",
    at_seq=20,
    players=_players("a", "b", "c", "d"),
    points=tuple(
        TournamentPoints(player_id=p, points=v)
        for p, v in [("a", 11.0), ("b", 8.5), ("c", 5.0), ("d", 2.0)]
    ),
    tables=(
        LeagueTable(round=2, table=1, results=_lines(("a", 1, 30), ("c", 2, 20), ("d", 3, 10))),
        LeagueTable(round=1, table=1, results=_lines(("b", 1, 30), ("a", 2, 25), ("c", 3, 5))),
    ),
)
GAME = GameAdded(
    game_id="g1",
    at_seq=90,
    players=_players("a", "b", "c", "d"),
    results=_lines(("d", 1, 40), ("c", 2, 30), ("b", 3, 20), ("a", 4, 10)),
)


def test_standings_add_tournament_points_and_a_games_placement_points() -> None:
    state = fold(_events(LeagueCreated(title="Club", game="penumbra"), CUP, GAME))
    table = {line.player_id: line.points for line in league_standings(state)}
    # a 11 + 1 (4th of 4), b 8.5 + 3, c 5 + 5, d 2 + 7.
    assert table == {"a": 12, "b": Fraction(23, 2), "c": 10, "d": 9}
    assert [line.player_id for line in league_standings(state)] == ["a", "b", "c", "d"]


def test_best_one_counts_each_players_best_addition_only() -> None:
    created = LeagueCreated(title="Club", game="penumbra", count="best", best=1)
    lines = league_standings(fold(_events(created, CUP, GAME)))
    # a max(11, 1) = 11, b max(8.5, 3), c max(5, 5) = 5 (the earlier counts), d max(2, 7).
    assert [(line.player_id, line.points) for line in lines] == [
        ("a", 11), ("b", Fraction(17, 2)), ("d", 7), ("c", 5),
    ]  # fmt: skip
    c = next(line for line in lines if line.player_id == "c")
    assert [(p.key, p.counted) for p in c.parts] == [("tournament:cup", True), ("game:g1", False)]


def test_rating_history_in_round_order_and_replayable() -> None:
    events = _events(LeagueCreated(title="Club", game="penumbra"), CUP, GAME)
    steps, now = rating_history(fold(events), Toy())
    # R1 T1 (b +2, a 0, c -2), R2 T1 (a +2, c 0, d -2), then g1 of 4 (+3, +1, -1, -3 for
    # d, c, b, a): a 25 + 0 + 2 - 3 = 24, b 25 + 2 - 1 = 26, c 25 - 2 + 0 + 1 = 24,
    # d 25 - 2 + 3 = 26.
    assert [(s.addition, s.round, s.table) for s in steps] == [
        ("tournament:cup", 1, 1), ("tournament:cup", 2, 1), ("game:g1", None, None),
    ]  # fmt: skip
    assert {pid: r.mu for pid, r in now.items()} == {"a": 24, "b": 26, "c": 24, "d": 26}
    assert steps[1].before["a"].mu == 25
    assert steps[1].after["a"].mu == 27
    # A replay to seq 2 (before the game) stops after the tournament.
    _, then = rating_history(fold(events, upto_seq=2), Toy())
    assert {pid: r.mu for pid, r in then.items()} == {"a": 27, "b": 27, "c": 23, "d": 23}


def test_adding_again_replaces_in_place() -> None:
    fixed = GAME.model_copy(
        update={"results": _lines(("a", 1, 50), ("c", 2, 30), ("b", 3, 20), ("d", 4, 10))}
    )
    state = fold(_events(LeagueCreated(title="Club", game="penumbra"), GAME, CUP, fixed))
    assert list(state.additions) == ["game:g1", "tournament:cup"]
    assert state.additions["game:g1"].seq == 4
    points = {line.player_id: line.points for line in league_standings(state)}
    assert points["a"] == 7 + 11


def test_a_tied_first_place_leaves_two_equal_players_at_25_with_less_doubt() -> None:
    model = OpenSkillModel()
    a, b = model.rate([model.initial(), model.initial()], [1, 1])
    # By symmetry a draw between equals moves no mean; it only shrinks the uncertainty.
    assert a.mu == pytest.approx(25.0)
    assert b.mu == pytest.approx(25.0)
    assert a.sigma < 25 / 3
    assert a == b
    win, loss = model.rate([model.initial(), model.initial()], [1, 2])
    assert win.mu > 25 > loss.mu
    assert win.mu - 25 == pytest.approx(25 - loss.mu)


def test_rules_refuse_bad_streams() -> None:
    with pytest.raises(RuleViolation) as refused:
        fold(_events(GAME))
    assert refused.value.rule == "league.not_created"
    with pytest.raises(RuleViolation) as refused:
        fold(_events(LeagueCreated(title="Club", game="chess")))
    assert refused.value.rule == "league.unknown_game"
    bad = GAME.model_copy(update={"results": _lines(("a", 1, 5), ("b", 3, 4))})
    with pytest.raises(RuleViolation) as refused:
        fold(_events(LeagueCreated(title="Club", game="penumbra"), bad))
    assert refused.value.rule == "league.result_places"
    with pytest.raises(ValueError, match="best"):
        LeagueCreated(title="Club", game="penumbra", count="best")
