"""`settle_one` (one player's changes) answers as `settle` does: the same state, the same
entries, the same refusal, on a frozen state (copied) and on a thawed one (written in place).
Source: docs/rules/trickerion.md#during-play (the floors), docs/profiles/fold-event-cost.md."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast
from uuid import UUID

from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.common import Player
from contracts.envelope import Envelope
from contracts.trickerion import TrickerionOptions
from domain.errors import RuleViolation
from domain.ledger import Resource
from domain.trickerion.catalog import Amounts, tricks
from domain.trickerion.performance import WEEKDAY_MODIFIERS, yield_amounts
from domain.trickerion.state import (
    Changed,
    PlayerBook,
    TrickerionState,
    settle,
    settle_one,
    start_state,
    thawed,
)

_EVENT = cast(Envelope, SimpleNamespace(event_id=UUID(int=7), seq=12))
_PLAYERS = (
    Player(player_id="ann", name="Ann", seat=1, initiative=1),
    Player(player_id="bo", name="Bo", seat=2, initiative=2),
)

changes_of_ann = st.lists(
    st.tuples(
        st.sampled_from([Resource.FAME, Resource.COINS, Resource.SHARDS]),
        st.integers(-6, 6),
        st.sampled_from(["field_a", "field_b"]),
    ).map(lambda c: ("ann", c[0], c[1], "misc", "rule", f"note {c[1]}", c[2])),
    max_size=5,
)


def _state(fame_floor: str, negative_coins: str) -> TrickerionState:
    options = TrickerionOptions(fame_floor=fame_floor, negative_coins=negative_coins)  # type: ignore[arg-type]
    state = start_state(options, _PLAYERS)
    books = {"ann": PlayerBook(3, 2, 1, ("t1",), ("h",), 2), "bo": PlayerBook(4, 4, 0)}
    return state.with_book("ann", books["ann"]).with_book("bo", books["bo"])


def _answer(run: Any) -> Any:
    try:
        return run()
    except RuleViolation as error:
        return ("refused", error.rule, error.field, error.message)


@settings(max_examples=300, deadline=None)
@given(
    changes=changes_of_ann,
    fame_floor=st.sampled_from(["clamp_zero", "allow_negative"]),
    negative_coins=st.sampled_from(["never", "allow"]),
    new_book=st.booleans(),
    owned=st.booleans(),
)
def test_settle_one_equals_settle(
    changes: list[Changed], fame_floor: str, negative_coins: str, new_book: bool, owned: bool
) -> None:
    base = _state(fame_floor, negative_coins)
    book = base.books["ann"]._replace(hires=("h", "x")) if new_book else base.books["ann"]

    def state() -> TrickerionState:  # each answer from a state of its own (thawed: written)
        return thawed(base) if owned else base

    one = _answer(lambda: settle_one(state(), _EVENT, "ann", book, changes))
    general = _answer(lambda: settle(state(), _EVENT, changes, ("ann", book) if new_book else None))
    assert one == general
    if one[0] != "refused":
        assert one[0].books == general[0].books
        assert base == _state(fame_floor, negative_coins)  # a frozen state is never written
        if not owned and not one[1] and not new_book:
            assert one[0] is base  # nothing changed: the same state


def test_weekday_yields_kept_equal_the_formula() -> None:
    # `yield_amounts` keeps each modified yield: the second answer (kept) equals the first
    state = start_state(TrickerionOptions(weekday_yield_modifiers=True), _PLAYERS)
    for card in tricks().values():
        for day, mod in WEEKDAY_MODIFIERS.items():
            printed = card.yield_
            want = Amounts(max(0, printed.fame + mod), max(0, printed.coins + mod), printed.shards)
            assert yield_amounts(state, printed, day) == want
            assert yield_amounts(state, printed, day) == want
