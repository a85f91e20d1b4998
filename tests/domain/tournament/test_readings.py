"""The tournament readings written down in docs/tournament-rules.md, each with hand-computed
values: the effective seed, when a bye's points count, who gets the bye, what `held` lists,
and what the created event refuses or accepts."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from pydantic import ValidationError

from contracts.tournament import (
    PlayerJoinedLate,
    PlayerRegistered,
    ResultLine,
    TableResultApproved,
    TableResultDisputed,
    TableResultReported,
    TournamentCreated,
)
from domain.tournament.fold import fold
from domain.tournament.history import History
from domain.tournament.seating import Entrant, SeatingRules, seat_round
from domain.tournament.standings import standings
from tests.domain.tournament.stream import Stream

SCHEMAS = Path(__file__).resolve().parents[3] / "contracts" / "schemas"


def test_effective_seed_seeded_first_then_registration_order_then_late_joiners() -> None:
    s = Stream().create()
    s.add(PlayerRegistered(player_id="a", name="A"))
    s.add(PlayerRegistered(player_id="b", name="B", seed=2))
    s.add(PlayerRegistered(player_id="c", name="C", seed=2))  # a duplicate seed is accepted
    s.add(PlayerRegistered(player_id="d", name="D", seed=1))
    s.seat(1, ("a", "b", "c", "d"))
    s.add(PlayerJoinedLate(player_id="e", name="E"))
    # d (seed 1), b and c (seed 2, b registered first), a (unseeded), e (late)
    assert fold(s.events).seed_rank() == {"d": 1, "b": 2, "c": 3, "a": 4, "e": 5}


def _bye_cup(**settings: object) -> Stream:
    s = Stream().create(remainder="byes", **settings).register("a", "b", "c", "d", "e")
    return s.seat(1, ("a", "b", "c", "d"), byes=("e",))


def _points(s: Stream) -> dict[str, Fraction]:
    return {line.player_id: line.points.value for line in standings(fold(s.events)).lines}


def test_a_bye_counts_once_every_table_of_its_round_is_approved() -> None:
    s = _bye_cup()
    assert _points(s)["e"] == 0  # the table is only seated
    s.result(1, 1, ("a", 1, 9), ("b", 2, 8), ("c", 3, 7), ("d", 4, 6), approve=False)
    assert _points(s)["e"] == 0  # reported, not approved
    s.add(TableResultApproved(round=1, table=1, judge="jo"))
    assert _points(s) == {"a": 7, "e": 4, "b": 5, "c": 3, "d": 1}  # bye_points 4
    s.add(TableResultDisputed(round=1, table=1, by="b", reason="no"))
    assert _points(s)["e"] == 0  # open round, a table held out again: the bye waits
    s.add(TableResultApproved(round=1, table=1, judge="jo"))
    s.close(1)
    s.add(TableResultDisputed(round=1, table=1, by="b", reason="after the close"))
    assert _points(s)["e"] == 4  # the round closed: the bye counts for good


def test_a_bye_earns_nothing_with_game_score() -> None:
    s = _bye_cup(scoring="game_score")
    s.result(1, 1, ("a", 1, 9), ("b", 2, 8), ("c", 3, 7), ("d", 4, 6))
    assert _points(s) == {"a": 9, "b": 8, "c": 7, "d": 6, "e": 0}


def test_the_bye_goes_to_fewest_byes_then_fewest_points_then_largest_seed_number() -> None:
    rules = SeatingRules(remainder="byes")
    entrants = [
        Entrant("a", 1, 7.0),
        Entrant("b", 2, 5.0),
        Entrant("c", 3, 5.0),
        Entrant("d", 4, 1.0),
        Entrant("e", 5, 1.0),
    ]
    # d and e have the fewest points (1); e has the larger seed number
    assert seat_round(entrants, 2, History(), rules).byes == ("e",)
    # e had a bye already: d (fewest points among those with none)
    assert seat_round(entrants, 3, History.of([((), ("e",))]), rules).byes == ("d",)
    # tie-breaks are not consulted: only points and seed number, so c (5 points, seed 3)
    # sits out before b whatever their opponents did, once d and e had their bye
    assert seat_round(entrants, 4, History.of([((), ("e", "d"))]), rules).byes == ("c",)


def test_held_lists_reported_and_disputed_tables_never_an_unreported_one() -> None:
    s = Stream().create().register(*"abcdefg")
    s.seat(1, ("a", "b", "c", "d"), ("e", "f", "g"))
    assert standings(fold(s.events)).held == ()
    s.result(1, 1, ("a", 1, 9), ("b", 2, 8), ("c", 3, 7), ("d", 4, 6), approve=False)
    assert standings(fold(s.events)).held == ((1, 1, "reported"),)
    s.add(TableResultDisputed(round=1, table=1, by="b", reason="no"))
    assert standings(fold(s.events)).held == ((1, 1, "disputed"),)


def test_empty_tie_breaks_order_by_points_then_effective_seed() -> None:
    s = Stream().create(scoring="game_score", tie_breaks=())
    for pid, seed in (("a", 2), ("b", 1), ("c", 4), ("d", 3)):
        s.add(PlayerRegistered(player_id=pid, name=pid, seed=seed))
    s.seat(1, ("a", "b", "c", "d"))
    lines = tuple(
        ResultLine(player_id=p, place=pl, score=sc)
        for p, pl, sc in (("a", 1, 10), ("b", 1, 10), ("c", 3, 5), ("d", 3, 5))
    )
    s.add(TableResultReported(round=1, table=1, results=lines, reported_by="t"))
    s.add(TableResultApproved(round=1, table=1, judge="jo"))
    table = standings(fold(s.events))
    # a and b 10 points, c and d 5; ties go to the lower seed number: b (1) and d (3)
    assert [(line.player_id, line.points.value) for line in table.lines] == [
        ("b", 10),
        ("a", 10),
        ("d", 5),
        ("c", 5),
    ]


BASE = {"title": "Cup", "game": "trickerion", "rounds": 3}


@pytest.mark.parametrize(
    ("settings", "field", "rule"),
    [
        ({"points_4": (1, 3, 5, 7)}, "points_4", "tournament.points_order"),
        ({"points_3": (2, 3, 1)}, "points_3", "tournament.points_order"),
        ({"points_5": (9, 7, 5, 6, 1)}, "points_5", "tournament.points_order"),
        ({"tie_breaks": ("buchholz", "buchholz")}, "tie_breaks", "tournament.tie_break_twice"),
    ],
)
def test_the_created_event_refuses_naming_the_field_and_rule(
    settings: dict[str, object], field: str, rule: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        TournamentCreated.model_validate({**BASE, **settings})
    error = refused.value.errors()[0]
    assert error["loc"] == (field,)
    assert rule in error["msg"]


def test_the_created_event_accepts_equal_neighbours_and_no_tie_breaks() -> None:
    created = TournamentCreated.model_validate({**BASE, "points_4": (5, 5, 3, 3), "tie_breaks": ()})
    assert (created.points_4, created.tie_breaks) == ((5, 5, 3, 3), ())


def test_each_reading_is_in_the_json_schemas() -> None:
    created = json.loads((SCHEMAS / "tournament.created.json").read_text())
    fields = created["$defs"]["TournamentCreated"]["properties"]
    assert fields["tie_breaks"]["uniqueItems"] is True
    assert "tournament.tie_break_twice" in fields["tie_breaks"]["description"]
    assert "An empty list is accepted" in fields["tie_breaks"]["description"]
    for name in ("points_3", "points_4", "points_5"):
        assert "tournament.points_order" in fields[name]["description"]
    assert "approved result" in fields["bye_points"]["description"]
    assert "largest effective seed number" in fields["remainder"]["description"]
    late = json.loads((SCHEMAS / "tournament.player_joined_late.json").read_text())
    assert "tournament.late_seed" in json.dumps(late)
    registered = json.loads((SCHEMAS / "tournament.player_registered.json").read_text())
    assert "earlier registration ranks first" in json.dumps(registered)
    approved = json.loads((SCHEMAS / "tournament.table_result_approved.json").read_text())
    assert "latest ruling" in json.dumps(approved)
    reported = json.loads((SCHEMAS / "tournament.table_result_reported.json").read_text())
    assert "tournament.ruling_stands" in json.dumps(reported)
