"""The tournament fold's rules: each breach refused by rule id with the state unchanged; a
dispute holds a table out of the standings; a replay to any seq shows the standings then."""

from __future__ import annotations

from fractions import Fraction

import pytest

from contracts.tournament import (
    PlayerDropped,
    PlayerJoinedLate,
    PlayerRegistered,
    ResultLine,
    RoundClosed,
    TableResultApproved,
    TableResultConfirmed,
    TableResultDisputed,
    TournamentCreated,
)
from domain.errors import RuleViolation
from domain.tournament.fold import evolve, fold
from domain.tournament.standings import standings
from tests.domain.tournament.stream import Stream

T1 = (("a", 1, 30), ("b", 2, 25), ("c", 3, 20))
T2 = (("d", 1, 40), ("e", 2, 22), ("f", 3, 10))


def _started() -> Stream:
    return (
        Stream()
        .create(rounds=2)
        .register("a", "b", "c", "d", "e", "f")
        .seat(1, ("a", "b", "c"), ("d", "e", "f"))
    )


def _refused(stream: Stream, rule: str) -> None:
    before = fold(stream.events[:-1])
    with pytest.raises(RuleViolation) as refused:
        evolve(before, stream.events[-1])
    assert refused.value.rule == rule
    assert fold(stream.events[:-1]) == before  # unchanged


def test_the_first_event_must_create_the_tournament() -> None:
    s = Stream()
    s.add(PlayerRegistered(player_id="a", name="A"))
    with pytest.raises(RuleViolation) as refused:
        fold(s.events)
    assert refused.value.rule == "tournament.not_created"


def test_registration_closes_when_round_one_is_seated_and_late_joiners_wait() -> None:
    s = _started()
    s.add(PlayerRegistered(player_id="g", name="G"))
    _refused(s, "tournament.registration_closed")
    s = _started()
    s.add(PlayerJoinedLate(player_id="g", name="G"))
    state = fold(s.events)
    assert [p.player_id for p in state.active(1)] == ["a", "b", "c", "d", "e", "f"]
    assert "g" in [p.player_id for p in state.active(2)]


def test_a_round_must_seat_every_active_player_once_and_no_dropped_player() -> None:
    s = _started().result(1, 1, *T1).result(1, 2, *T2).close(1)
    s.add(PlayerDropped(player_id="f", reason="went home"))
    s.seat(2, ("a", "b", "c"), ("d", "e", "f"))
    _refused(s, "tournament.seating_players")
    s = (
        Stream()
        .create()
        .register("a", "b", "c", "d", "e", "f")
        .seat(1, ("a", "b", "c"), ("d", "e", "a"))
    )
    _refused(s, "tournament.seating_players")


def test_the_next_round_waits_until_every_table_is_approved() -> None:
    s = _started().result(1, 1, *T1).result(1, 2, *T2, approve=False)
    s.add(RoundClosed(round=1))
    _refused(s, "tournament.tables_unapproved")
    s = _started().result(1, 1, *T1)
    s.seat(2, ("a", "b", "c"), ("d", "e", "f"))
    _refused(s, "tournament.round_open")


def test_a_result_names_the_tables_players_with_valid_places() -> None:
    s = _started().result(1, 1, ("a", 1, 30), ("b", 2, 25), ("d", 3, 20), approve=False)
    _refused(s, "tournament.result_players")
    s = _started().result(1, 1, ("a", 1, 30), ("b", 3, 25), ("c", 3, 20), approve=False)
    _refused(s, "tournament.result_places")
    ok = _started().result(1, 1, ("a", 1, 30), ("b", 1, 30), ("c", 3, 20))
    line = {x.player_id: x.points.value for x in standings(fold(ok.events)).lines}
    assert line["a"] == line["b"] == Fraction(11, 2)  # shared first of 3 at 7/4/1: (7 + 4) / 2


def test_a_dispute_holds_the_table_out_until_a_judge_approves() -> None:
    s = _started().result(1, 1, *T1).result(1, 2, *T2)
    s.add(TableResultDisputed(round=1, table=2, by="e", reason="f's score miscounted"))
    held = standings(fold(s.events))
    points = {x.player_id: x.points.value for x in held.lines}
    assert (points["d"], points["a"]) == (0, 7)
    assert held.held == ((1, 2, "disputed"),)
    ruling = tuple(
        ResultLine(player_id=p, place=pl, score=sc)
        for p, pl, sc in (("e", 1, 41), ("d", 2, 40), ("f", 3, 10))
    )
    s.add(TableResultApproved(round=1, table=2, judge="Head judge", results=ruling))
    settled = standings(fold(s.events))
    points = {x.player_id: x.points.value for x in settled.lines}
    assert (points["e"], points["d"], settled.held) == (7, 4, ())


def test_a_confirmation_comes_from_a_tablemate() -> None:
    s = _started().result(1, 1, *T1, approve=False)
    s.add(TableResultConfirmed(round=1, table=1, player_id="d"))
    _refused(s, "tournament.not_at_table")
    s = _started().result(1, 1, *T1, approve=False)
    s.add(TableResultConfirmed(round=1, table=1, player_id="b"))
    assert fold(s.events).rounds[0].tables[1].confirmed == ["b"]


def test_replay_to_any_seq_shows_the_standings_as_they_were() -> None:
    s = _started().result(1, 1, *T1)
    before_approval = len(s.events) - 1
    s.result(1, 2, *T2)
    at = standings(fold(s.events, upto_seq=before_approval))
    assert {x.player_id: x.points.value for x in at.lines}["a"] == 0
    assert at.held == ((1, 1, "reported"),)
    now = standings(fold(s.events))
    assert {x.player_id: x.points.value for x in now.lines}["a"] == 7


def test_a_seq_gap_is_refused() -> None:
    s = _started()
    gap = s.events[-1].model_copy(update={"seq": 99})
    with pytest.raises(RuleViolation) as refused:
        evolve(fold(s.events[:-1]), gap)
    assert refused.value.rule == "log.seq_gap"


def test_a_tournament_of_a_game_no_ruleset_scores_is_refused() -> None:
    """Its tables are games: a tournament of `chess` could never report a result."""
    stream = Stream("t")
    stream.add(TournamentCreated(title="Cup", game="chess", rounds=3))
    with pytest.raises(RuleViolation) as refused:
        fold(stream.events)
    assert (refused.value.rule, refused.value.field) == ("tournament.unknown_game", "game")
    assert "penumbra, trickerion" in str(refused.value)
    for game in ("penumbra", "trickerion"):
        assert fold(Stream("t").create(game=game).events).settings.game == game
