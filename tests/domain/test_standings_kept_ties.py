"""Ties in `kept_standings`: the places of tied totals are kept while the totals, the tied
players' rank keys and the tie-break's answer are equal, so these properties aim at ties
(made and undone by corrections, for first place and below, and tied states of a game
rendered out of order, where the kept places were settled for another state) and compare
with the full render from nothing (`assert_kept_is_full`).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import ValidationError

from domain.errors import RuleViolation
from domain.fold import GameState, evolve
from services.simulator.tables import simulate_game
from tests.domain.referee import KINDS, SEEDS, correction_of, middle_of_play
from tests.domain.test_standings_kept import PROPERTY, assert_kept_is_full


def _tied(state: GameState[Any]) -> bool:
    values = [state.totals.get(p.player_id, 0) for p in state.players]
    return len(set(values)) < len(values)


@PROPERTY
@given(seed=SEEDS, kind=KINDS, picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=6))
def test_ties_made_and_undone_by_corrections_equal_the_full_render(
    seed: int, kind: str, picks: list[int]
) -> None:
    """Each pick ties one player with another (first place among them) by a correction,
    checks, then undoes it by the opposite correction and checks again."""
    folder = middle_of_play(kind, seed, assert_kept_is_full)
    made = 0
    for pick in picks:
        state = folder.state
        players = state.players
        mover, target = pick % len(players), (pick // len(players)) % len(players)
        totals = [state.totals.get(p.player_id, 0) for p in players]
        amount = totals[target] - totals[mover]
        if mover == target or amount == 0:
            continue
        try:
            folder.add(correction_of(state, mover, amount, "correction"))
        except (RuleViolation, ValidationError):
            continue
        assert _tied(folder.state)
        assert_kept_is_full(folder.state)
        made += 1
        folder.add(correction_of(folder.state, mover, -amount, "correction"))
        assert_kept_is_full(folder.state)
    print(f"{kind} seed {seed}: {made} ties made and undone")


@PROPERTY
@given(seed=SEEDS, kind=KINDS, order=st.randoms(use_true_random=False))
def test_tied_states_rendered_out_of_order_equal_the_full_render(
    seed: int, kind: str, order: random.Random
) -> None:
    """The tied states of a game (every memo cleared) in random order: each finds places
    kept for another tied state, with other totals, rank keys or tie-break answers."""
    tied: list[GameState[Any]] = []
    state: GameState[Any] | None = None
    for event in simulate_game(kind, seed, 0):
        state = evolve(state, event)
        if _tied(state):
            tied.append(state)
    # some games never tie (a Trickerion game may start from unequal Fame and stay apart)
    assume(tied)
    for one in order.sample(tied, min(len(tied), 40)):
        one.memo.clear()
        assert_kept_is_full(one)
    print(f"{kind} seed {seed}: {len(tied)} tied states")


def _keys(state: GameState[Any]) -> tuple[object, ...]:
    rank_key = state.ruleset.rank_key
    return tuple(rank_key(state.rules, p.player_id) for p in state.players)


def test_equal_tied_totals_with_other_rank_keys_equal_the_full_render() -> None:
    """States with the same tied totals but other rank keys (ordered ranks: the initiative
    track or the wounds moved meanwhile), rendered one after the other: the places kept for
    the first must not serve the second."""
    pairs = 0
    for kind in ("trickerion", "penumbra"):
        for seed in range(12):
            groups: dict[tuple[int, ...], list[GameState[Any]]] = {}
            state: GameState[Any] | None = None
            for event in simulate_game(kind, seed, 0):
                state = evolve(state, event)
                if _tied(state):
                    values = tuple(state.totals.get(p.player_id, 0) for p in state.players)
                    groups.setdefault(values, []).append(state)
            for group in groups.values():
                if len({_keys(s) for s in group}) < 2:
                    continue
                pairs += 1
                for one in (*group, *reversed(group)):
                    one.memo.clear()
                    assert_kept_is_full(one)
    assert pairs, "no tied totals met with other rank keys"
    print(f"{pairs} tied totals met with other rank keys")
