"""The standings kept event by event (`domain.standings_kept`) and the projection rendered
from them (`services.usecases.projected.rendered`) stay the full render when the kept parts
are shared in ways a straight fold never shows: forks of one state (two folders resumed from
it, each going its own way, rendered in turn, the state they left rendered again after both),
and ties forced into and out of existence by corrections (two or three players on one total,
the tie undone by one point, a leader's total moving while every place stays)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.fold import Folder, GameState
from domain.memo import Memo
from domain.standings import standings, standings_json
from domain.standings_kept import kept_standings
from services.usecases.projected import rendered
from services.usecases.readmodels.render import view_json
from tests.domain.referee import KINDS, PICKS, SEEDS, correction_of, middle_of_play, void_of
from tests.domain.test_standings_incremental import cold

PROPERTY = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_full(state: GameState[Any]) -> None:
    """`state`'s kept standings and its rendered projection are the full render from nothing."""
    fresh = cold(state)
    assert kept_standings(state) == standings(fresh), f"seq {state.seq}"
    text, view = rendered(state)
    assert text.encode() == standings_json(fresh), f"seq {state.seq}"
    assert view == view_json(standings(fresh), Memo()), f"seq {state.seq}"


def again(state: GameState[Any]) -> None:
    """`assert_full` of a state rendered before (its own memo dropped, the game's kept)."""
    state.memo.clear()
    assert_full(state)


def referee(folder: Folder[Any], pick: int) -> bool:
    """Add a void or a correction chosen by `pick` to `folder`; False if the fold refused it."""
    state = folder.state
    if pick % 3 == 0:
        event = void_of(state, pick)
    else:
        event = correction_of(state, pick, pick % 9 - 4 or 2, "correction")
    try:
        folder.add(event)
    except RuleViolation:
        return False
    return True


@PROPERTY
@given(seed=SEEDS, kind=KINDS, left=PICKS, right=PICKS)
def test_two_forks_of_one_state_rendered_in_turn_are_each_the_full_render(
    seed: int, kind: str, left: list[int], right: list[int]
) -> None:
    base = middle_of_play(kind, seed).state
    assert_full(base)
    forks: list[Folder[Any]] = [Folder.resume(base), Folder.resume(base)]
    seen = [base]
    for a, b in zip(left, right, strict=False):
        for folder, pick in ((forks[0], a), (forks[1], b)):
            if referee(folder, pick):
                assert_full(folder.state)
                seen.append(folder.state)
        again(base)
    for state in reversed(seen):  # older states after newer ones, of either fork
        again(state)


def tie_with(state: GameState[Any], mover: int, target: int) -> Any:
    """A correction giving player `mover` the total of player `target` (None: already equal)."""
    totals = [state.totals.get(p.player_id, 0) for p in state.players]
    gap = totals[target] - totals[mover]
    return None if gap == 0 else correction_of(state, mover, gap, "correction")


@PROPERTY
@given(seed=SEEDS, kind=KINDS, pairs=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9))))
def test_ties_made_and_undone_by_corrections_are_the_full_render(
    seed: int, kind: str, pairs: list[tuple[int, int]]
) -> None:
    folder = middle_of_play(kind, seed)
    assert_full(folder.state)
    n = len(folder.state.players)
    tied = 0
    for a, b in [(0, 1), (2, 0), *pairs]:
        mover, target = a % n, b % n
        made = tie_with(folder.state, mover, target)  # tied with `target` (three-way on repeat)
        if made is not None:
            folder.add(made)
            assert_full(folder.state)
        values = list(folder.state.totals.values())
        tied += len(set(values)) < len(values)
        folder.add(correction_of(folder.state, target, 1, "correction"))  # untied by one point
        assert_full(folder.state)
        state = folder.state
        leader = max(range(n), key=lambda i: state.totals.get(state.players[i].player_id, 0))
        folder.add(correction_of(state, leader, 3, "correction"))  # places stay, total moves
        assert_full(folder.state)
    assert tied or n < 2
