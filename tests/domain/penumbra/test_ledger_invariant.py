"""Property: after any accepted event, each player's VP ledger summed per category equals that
category computed from the current state (so the running total is the "if the game ended now"
score), and the ARCANA ledger sums to the supply. Rejected events change nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.fold import GameState, evolve
from domain.ledger import Resource
from domain.penumbra.categories import category_vp
from tests.domain.penumbra.builders import PenumbraGame

PLAYERS = ["ada", "bea"]
who = st.sampled_from([*PLAYERS, "zed"])
card = st.sampled_from(["a", "b", "c"])
small = st.integers(0, 6)
xp = st.dictionaries(
    st.sampled_from([f"XP{i}" for i in range(1, 7)]), st.integers(0, 7), max_size=6
)

Step = Callable[[PenumbraGame], object]
steps: st.SearchStrategy[Step] = st.one_of(
    st.builds(lambda p, n: lambda g: g.arcana_gained(p, n), who, st.integers(1, 14)),
    st.builds(lambda p, n: lambda g: g.arcana_spent(p, n), who, st.integers(1, 5)),
    st.builds(lambda p, c: lambda g: g.trial_reserved(p, c), who, card),
    st.builds(
        lambda p, c, v, x, li, d: lambda g: g.trial_completed(p, c, v, x, li, d),
        who,
        card,
        small,
        xp,
        small,
        small,
    ),
    st.builds(lambda p, c, x: lambda g: g.contract_reserved(p, c, 2, x, 1, 0), who, card, xp),
    st.builds(
        lambda p, c, v, x, d: lambda g: g.contract_fulfilled(p, c, v, x, 0, d),
        who,
        card,
        small,
        xp,
        small,
    ),
    st.builds(lambda p, c: lambda g: g.contract_reservation_removed(p, c), who, card),
    st.builds(lambda p, c, x: lambda g: g.tome_gained(p, c, x), who, card, xp),
    st.builds(lambda p, c: lambda g: g.tome_lost(p, c), who, card),
    st.builds(lambda p, c: lambda g: g.mortal_wound_taken(p, c), who, card),
    st.builds(lambda p, c: lambda g: g.mortal_wound_removed(p, c), who, card),
    st.builds(
        lambda p, c, v, s: lambda g: g.mark_placed(p, c, v, s), who, card, small, st.booleans()
    ),
    st.builds(lambda p, c: lambda g: g.mark_removed(p, c), who, card),
    st.builds(lambda p, c, v: lambda g: g.goal_scored(p, c, v), who, card, small),
    st.builds(lambda p, c: lambda g: g.goal_revoked(p, c), who, card),
)


def _check(state: GameState) -> None:
    vp, arcana = Counter[tuple[str, str]](), Counter[str]()
    for e in state.ledger:
        if e.resource is Resource.VP:
            vp[(e.player_id, e.category)] += e.amount
        else:
            arcana[e.player_id] += e.amount
    for pid, tableau in state.rules.tableaux.items():
        for key, value in category_vp(tableau, state.rules.options).items():
            assert vp[(pid, key)] == value, (pid, key)
        assert arcana[pid] == tableau.arcana


@settings(max_examples=150, deadline=None)
@given(st.lists(steps, max_size=40))
def test_ledger_always_equals_the_categories_of_the_state(plan: list[Step]) -> None:
    g = PenumbraGame(PLAYERS)
    state = g.state()
    for step in plan:
        step(g)
        try:
            state = evolve(state, g.events[-1])
        except RuleViolation:
            g.events.pop()
            continue
        _check(state)
