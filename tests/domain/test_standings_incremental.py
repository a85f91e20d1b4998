"""Standings kept incrementally (docs/decisions/0012-hot-reads-and-off-loop-replays.md) equal standings computed from nothing.

The fold shares one `domain.memo.Memo` per game (`GameState.cache`, the rulesets' `memo`) so a
player's provisional part, details and standings line are recomputed only when their inputs
changed. A stale memo would show as a line that differs from the same state's standings computed
with empty memos; these tests compare the two after every event of simulated games, with voids
and corrections on top (a void refolds from a mark, so states go back in time and fork).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings

from domain.fold import GameState, evolve
from domain.memo import MISS, Memo
from domain.standings import standings, standings_json
from services.simulator.tables import simulate_game
from tests.domain.referee import KINDS, PICKS, SEEDS, middle_of_play, referee_through

PROPERTY = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cold(state: GameState) -> GameState:
    """The same state with every memo empty (what a state folded from nothing would have)."""
    rules = state.rules
    if dataclasses.is_dataclass(rules) and any(f.name == "memo" for f in dataclasses.fields(rules)):
        rules = dataclasses.replace(rules, memo=Memo())  # type: ignore[type-var]
    return dataclasses.replace(state, rules=rules, cache=Memo(), memo={})


def test_memo_keeps_a_value_while_the_inputs_are_the_same_objects() -> None:
    memo, calls = Memo(), []
    a, b = object(), object()

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert memo.get("k", (a,), compute, (1,)) == 1
    assert memo.get("k", (a,), compute, (1,)) == 1  # same object, equal value: kept
    assert memo.get("k", (b,), compute, (1,)) == 2  # another object: recomputed
    assert memo.get("k", (b,), compute, (2,)) == 3  # another value: recomputed
    assert memo.peek("k", (a,), (1,)) is MISS  # one slot per key: the old inputs are gone
    assert memo.peek("k", (b,), (2,)) == 3
    print(f"computed {len(calls)} times for 4 lookups")


@PROPERTY
@given(seed=SEEDS, kind=KINDS)
def test_standings_after_every_event_equal_standings_from_nothing(seed: int, kind: str) -> None:
    log = list(simulate_game(kind, seed, 0))
    state: GameState[Any] | None = None
    for event in log:
        state = evolve(state, event)
        fresh = cold(state)
        assert standings(state) == standings(fresh), f"seq {state.seq}"
        assert standings_json(state) == standings_json(fresh), f"seq {state.seq}"
        assert standings_json(state) == standings(fresh).model_dump_json().encode()
    print(f"{kind} seed {seed}: {len(log)} events, standings equal after each")


@PROPERTY
@given(seed=SEEDS, kind=KINDS, picks=PICKS)
def test_standings_after_voids_and_corrections_equal_standings_from_nothing(
    seed: int, kind: str, picks: list[int]
) -> None:
    folder = middle_of_play(kind, seed)
    standings(folder.state)  # fill the memos before the voids

    def equal_from_nothing(state: GameState[Any]) -> None:
        assert standings_json(state) == standings_json(cold(state))
        assert standings_json(state) == standings(state).model_dump_json().encode()

    applied = referee_through(folder, picks, equal_from_nothing)
    print(f"{kind} seed {seed}: {applied} of {len(picks)} referee events applied, standings equal")
