"""`kept_standings` (standings kept current event by event) equals the full render.

The reference is `standings` of the same state with every memo empty (`cold`): a state folded
from nothing. Compared after every prefix of simulated games of both rulesets (any Trickerion
modules), with referee voids and corrections on top (a void refolds from a mark, so states go
back in time), and with the states rendered out of order (a replay renders an older state
after newer ones of the same game): the kept parts are checked against the state's own
inputs, never against which state was rendered last.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.fold import GameState, evolve
from domain.standings import standings, standings_json
from domain.standings_kept import kept_standings, kept_standings_json
from services.simulator.tables import simulate_game
from tests.domain.referee import KINDS, PICKS, SEEDS, middle_of_play, referee_through
from tests.domain.test_standings_incremental import cold

PROPERTY = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_kept_is_full(state: GameState[Any]) -> None:
    """The kept standings of `state` and their JSON equal the full render from nothing."""
    fresh = cold(state)
    assert kept_standings(state) == standings(fresh), f"seq {state.seq}"
    assert kept_standings_json(state) == standings_json(fresh), f"seq {state.seq}"
    assert kept_standings_json(state) == standings(fresh).model_dump_json().encode()


@PROPERTY
@given(seed=SEEDS, kind=KINDS)
def test_kept_standings_after_every_event_equal_the_full_render(seed: int, kind: str) -> None:
    log = list(simulate_game(kind, seed, 0))
    state: GameState[Any] | None = None
    for event in log:
        state = evolve(state, event)
        assert_kept_is_full(state)
    assert state is not None
    assert state.status == "final"
    print(f"{kind} seed {seed}: {len(log)} events, kept standings equal after each")


@PROPERTY
@given(seed=SEEDS, kind=KINDS, picks=PICKS)
def test_kept_standings_after_voids_and_corrections_equal_the_full_render(
    seed: int, kind: str, picks: list[int]
) -> None:
    folder = middle_of_play(kind, seed)
    kept_standings(folder.state)  # fill the kept parts before the voids
    applied = referee_through(folder, picks, assert_kept_is_full)
    print(f"{kind} seed {seed}: {applied} of {len(picks)} referee events applied, kept equal")


@PROPERTY
@given(seed=SEEDS, kind=KINDS, order=st.randoms(use_true_random=False))
def test_kept_standings_of_states_rendered_out_of_order_equal_the_full_render(
    seed: int, kind: str, order: random.Random
) -> None:
    states: list[GameState[Any]] = []
    state: GameState[Any] | None = None
    for event in simulate_game(kind, seed, 0):
        state = evolve(state, event)
        states.append(state)
    picked = order.sample(states, min(len(states), 40))
    for one in picked:  # every state of the game shares the kept parts (`GameState.cache`)
        one.memo.clear()
        assert_kept_is_full(one)
    print(f"{kind} seed {seed}: {len(picked)} of {len(states)} states in random order")


def test_a_tie_and_its_break_are_the_full_render() -> None:
    """A tie (everyone at 0 after the start, and ties later) goes through the ruleset's rank
    key and tie-break, as the full render does; a lead is placed from the totals alone."""
    seen = {"tied": 0, "untied": 0}
    for kind in ("trickerion", "penumbra"):
        state: GameState[Any] | None = None
        for event in simulate_game(kind, 7, 0):
            state = evolve(state, event)
            values = list(state.totals.values())
            seen["tied" if len(set(values)) < len(values) else "untied"] += 1
            assert_kept_is_full(state)
    assert seen["tied"], seen
    assert seen["untied"], seen
    print(f"states tied / untied: {seen}")
