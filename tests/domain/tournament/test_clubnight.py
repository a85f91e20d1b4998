"""Check-in and the round's clock in the fold: once anyone is checked in only the checked-in
(and late joiners) are seated; a check-in is refused twice, for an unknown or a dropped
player; the clock runs only for the open round and restarts; the seating use case seats by
check-in. Rules: docs/rules/tournaments.md#check-in, #round-timer."""

from __future__ import annotations

import pytest

from contracts.tournament import PlayerCheckedIn, PlayerDropped, PlayerJoinedLate, RoundTimerStarted
from domain.errors import RuleViolation
from domain.tournament.fold import evolve, fold
from domain.tournament.seating import seat_round
from domain.tournament.standings import standings
from services.tournaments.usecases.stream import entrants_of, history_of, rules_of
from tests.domain.tournament.stream import Stream

SEVEN = ("a", "b", "c", "d", "e", "f", "g")


def _refused(stream: Stream, rule: str) -> None:
    before = fold(stream.events[:-1])
    with pytest.raises(RuleViolation) as refused:
        evolve(before, stream.events[-1])
    assert refused.value.rule == rule


def test_without_check_in_every_registered_player_is_seated() -> None:
    state = fold(Stream().create().register(*SEVEN).events)
    assert not state.check_in
    assert [p.player_id for p in state.active(1)] == list(SEVEN)


def test_once_check_in_is_used_only_the_checked_in_are_seated() -> None:
    s = Stream().create().register(*SEVEN)
    for pid in ("a", "b", "c", "d", "e", "f"):
        s.add(PlayerCheckedIn(player_id=pid))
    state = fold(s.events)
    assert state.check_in
    assert state.players["a"].checked_in
    assert not state.players["g"].checked_in
    assert [p.player_id for p in state.active(1)] == ["a", "b", "c", "d", "e", "f"]
    # the seating engine seats exactly them, and the fold accepts that round
    seating = seat_round(
        entrants_of(state, standings(state), 1), 1, history_of(state), rules_of(state.settings), 0
    )
    seated = sorted(p for t in seating.tables for p in t.players)
    assert seated == ["a", "b", "c", "d", "e", "f"]
    s.seat(1, *(t.players for t in seating.tables))
    assert fold(s.events).rounds[0].tables
    # g is still registered; seating g in round 1 is refused
    bad = Stream().create().register(*SEVEN)
    for pid in ("a", "b", "c", "d", "e", "f"):
        bad.add(PlayerCheckedIn(player_id=pid))
    bad.seat(1, ("a", "b", "c", "g"), ("d", "e", "f"))
    _refused(bad, "tournament.seating_players")


def test_a_late_joiner_is_seated_without_a_check_in() -> None:
    s = Stream().create(rounds=2).register("a", "b", "c", "d", "e", "f")
    for pid in ("a", "b", "c"):
        s.add(PlayerCheckedIn(player_id=pid))
    s.seat(1, ("a", "b", "c"))
    s.result(1, 1, ("a", 1, 3), ("b", 2, 2), ("c", 3, 1)).close(1)
    s.add(PlayerJoinedLate(player_id="h", name="H"))
    assert [p.player_id for p in fold(s.events).active(2)] == ["a", "b", "c", "h"]


@pytest.mark.parametrize(
    ("setup", "rule"),
    [
        (lambda s: s.add(PlayerCheckedIn(player_id="zz")), "tournament.unknown_player"),
        (
            lambda s: (
                s.add(PlayerCheckedIn(player_id="a")),
                s.add(PlayerCheckedIn(player_id="a")),
            ),
            "tournament.checked_in",
        ),
        (
            lambda s: (
                s.add(PlayerDropped(player_id="a", reason="left")),
                s.add(PlayerCheckedIn(player_id="a")),
            ),
            "tournament.player_dropped",
        ),
    ],
)
def test_check_in_refusals(setup: object, rule: str) -> None:
    s = Stream().create().register(*SEVEN)
    setup(s)  # type: ignore[operator]
    _refused(s, rule)


def test_the_clock_runs_for_the_open_round_only_and_restarts() -> None:
    s = Stream().create(rounds=2).register("a", "b", "c")
    s.add(RoundTimerStarted(round=1, minutes=50))
    _refused(s, "tournament.timer_round")  # nothing seated yet
    s = Stream().create(rounds=2).register("a", "b", "c").seat(1, ("a", "b", "c"))
    s.add(RoundTimerStarted(round=2, minutes=50))
    _refused(s, "tournament.timer_round")  # not the open round
    s = Stream().create(rounds=2).register("a", "b", "c").seat(1, ("a", "b", "c"))
    first = s.add(RoundTimerStarted(round=1, minutes=50))
    assert fold(s.events).rounds[0].timer_started_at == first.occurred_at
    again = s.add(RoundTimerStarted(round=1, minutes=10))
    r = fold(s.events).rounds[0]
    assert (r.timer_started_at, r.timer_minutes) == (again.occurred_at, 10)
    assert again.occurred_at != first.occurred_at
    s.result(1, 1, ("a", 1, 3), ("b", 2, 2), ("c", 3, 1)).close(1)
    s.add(RoundTimerStarted(round=1, minutes=5))
    _refused(s, "tournament.timer_round")  # closed
    assert fold(s.events[:-1]).rounds[0].timer_minutes == 10  # the refused start changed nothing
