"""The end-game lines kept per player (`domain.trickerion.endlines`) and Penumbra's details kept
per tableau equal the same values computed from nothing, after every event of simulated games
(any modules and options), with voids and corrections, and with the states of a game asked out
of order; and an event changing the Coins recomputes only the lines that read them."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.fold import GameState, evolve
from domain.memo import Memo
from domain.penumbra.ruleset import PenumbraRuleset, _details
from domain.penumbra.state import PenumbraState
from domain.trickerion.endgame import EndLine, holdings, player_lines
from domain.trickerion.endlines import end_lines, level3_lines
from domain.trickerion.ruleset import RULESET as TRICKERION
from domain.trickerion.state import TrickerionState
from services.simulator.tables import simulate_game
from tests.domain.referee import PICKS, SEEDS, correction_of, middle_of_play, void_of
from tests.domain.trickerion.builders import TrickerionGame

PENUMBRA = PenumbraRuleset()
PROPERTY = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def from_nothing(lines: list[EndLine], state: TrickerionState, pid: str) -> list[tuple[Any, ...]]:
    """`level3_lines` as the code before the kept lines computed it, from `lines`."""
    level3 = [x for x in lines if x.category == "level3_tricks"]
    held = holdings(state, pid).level3
    return [(h.trick_id, x.category, x.amount, x.note) for h, x in zip(held, level3, strict=True)]


def assert_kept_equal_fresh(rules: Any) -> None:
    """Every player's kept lines, provisional part and details equal those of the same rules
    state with an empty memo (computed from nothing)."""
    cold = dataclasses.replace(rules, memo=Memo())
    if isinstance(rules, TrickerionState):
        for pid in rules.books:
            lines = player_lines(holdings(cold, pid), cold.options)
            ends = end_lines(rules, pid)
            assert ends.held == holdings(cold, pid)
            assert list(ends.lines) == lines
            assert level3_lines(rules, pid) == from_nothing(lines, cold, pid)
            assert TRICKERION.player_provisional(rules, pid) == TRICKERION.player_provisional(
                cold, pid
            )
            assert TRICKERION.player_details(rules, pid) == TRICKERION.player_details(cold, pid)
    else:
        assert isinstance(rules, PenumbraState)
        for pid, tableau in rules.tableaux.items():
            kept = PENUMBRA.player_details(rules, pid)
            assert kept == _details(tableau, rules.options)
            assert kept == PENUMBRA.player_details(cold, pid)


KIND = st.sampled_from(["trickerion", "trickerion", "penumbra"])


@PROPERTY
@given(seed=SEEDS, kind=KIND)
def test_kept_lines_after_every_event_equal_the_lines_from_nothing(seed: int, kind: str) -> None:
    state: GameState[Any] | None = None
    for event in simulate_game(kind, seed, 0):
        state = evolve(state, event)
        assert_kept_equal_fresh(state.rules)
    assert state is not None
    assert state.status == "final"


@PROPERTY
@given(seed=SEEDS, kind=KIND, picks=PICKS)
def test_kept_lines_after_voids_and_corrections_equal_the_lines_from_nothing(
    seed: int, kind: str, picks: list[int]
) -> None:
    folder = middle_of_play(kind, seed, lambda s: assert_kept_equal_fresh(s.rules))
    for pick in picks:
        state = folder.state
        if pick % 2:
            event = void_of(state, pick)
        else:
            event = correction_of(state, pick, pick % 7 - 3, "correction")
        try:
            folder.add(event)
        except RuleViolation:
            continue
        assert_kept_equal_fresh(folder.state.rules)


@PROPERTY
@given(seed=SEEDS, kind=KIND, order=st.randoms(use_true_random=False))
def test_kept_lines_of_states_asked_out_of_order_equal_the_lines_from_nothing(
    seed: int, kind: str, order: random.Random
) -> None:
    states: list[Any] = []
    state: GameState[Any] | None = None
    for event in simulate_game(kind, seed, 0):
        state = evolve(state, event)
        states.append(state.rules)
    order.shuffle(states)
    for rules in states:
        assert_kept_equal_fresh(rules)


def folded_each(g: TrickerionGame) -> list[TrickerionState]:
    """The rules state after each of `g`'s events, folded one after another (one memo)."""
    state: GameState[Any] | None = None
    states = []
    for event in g.events:
        state = evolve(state, event)
        states.append(state.rules)
    return states


def test_a_coins_change_recomputes_only_the_lines_reading_coins() -> None:
    g = TrickerionGame(["ann", "ben"], dark_alley=True)
    g.turn()
    g.learn("ann", "T24")  # 1 per 3 unspent Coins (docs/rules/trickerion.md#level-3)
    g.learn("ann", "T46")  # 1 per held Shard
    g.reach("ann", coins=9, shards=2)
    g.reach("ann", coins=12)
    g.reach("ann", shards=5)
    *_, first, coins, shards = [end_lines(s, "ann") for s in folded_each(g)]
    assert [x.trick_id for x in coins.held.level3] == ["T24", "T46"]
    assert coins.lines[0] is first.lines[0]  # Shards: unchanged, the kept line
    assert coins.lines[2] is first.lines[2]  # Special Assignments
    assert coins.lines[4] is first.lines[4]  # T46 reads Shards only
    assert (coins.lines[1].amount, coins.lines[3].amount) == (4, 4)  # Coins, T24
    assert [c[2] for c in coins.cards] == [4, 2]
    assert shards.lines[1] is coins.lines[1]
    assert shards.lines[3] is coins.lines[3]
    assert (shards.lines[0].amount, shards.lines[4].amount) == (5, 5)  # Shards, T46
    assert [c[2] for c in shards.cards] == [4, 5]
    for state in folded_each(g):
        assert_kept_equal_fresh(state)


LEVEL3 = ("T09", "T10", "T11", "T22", "T24", "T35", "T36", "T46", "T47", "T48")


@settings(max_examples=40, deadline=None)
@given(
    tricks=st.lists(st.sampled_from(LEVEL3), unique=True, max_size=5),
    steps=st.lists(st.tuples(st.integers(-4, 40), st.integers(0, 25)), min_size=1, max_size=10),
    dot=st.booleans(),
    powers=st.booleans(),
    saws=st.sampled_from(["all_held", "excluding_contraption"]),
)
def test_kept_lines_through_coins_and_shards_changes_equal_the_lines_from_nothing(
    tricks: list[str], steps: list[tuple[int, int]], dot: bool, powers: bool, saws: str
) -> None:
    g = TrickerionGame(
        ["ann", "ben"],
        dark_alley=True,
        dawn_of_technology=dot,
        magician_powers=powers,
        horror_saws_shards=saws,
        negative_coins="allow",
    )
    g.turn()
    for trick_id in tricks:
        g.learn("ann", trick_id)
    for coins, shards in steps:
        g.reach("ann", coins=coins, shards=shards)
    for state in folded_each(g):
        assert_kept_equal_fresh(state)
