"""`domain.values.replace` on the Penumbra states and `PenumbraState.with_tableau` (the Penumbra moves' copies,
each with a fields dict of its own): the same values as `dataclasses.replace`."""

from __future__ import annotations

import dataclasses

import pytest

from contracts.penumbra import PenumbraOptions
from domain.penumbra.state import Card, PenumbraState, Tableau, changed
from domain.values import replace


def test_replace_is_dataclasses_replace_and_leaves_the_original() -> None:
    card = Card("T1", 3, (1, 0, 0, 0, 0, 0), 1, 0)
    t = Tableau(arcana=2, trials=(card,), goals={"G1": 4})
    new = replace(t, arcana=5, wounds=("W1",))
    assert new == dataclasses.replace(t, arcana=5, wounds=("W1",))
    assert type(new) is Tableau
    assert new.trials is t.trials  # a shallow copy: the fields are shared
    assert t == Tableau(arcana=2, trials=(card,), goals={"G1": 4})
    assert new.__dict__ is not t.__dict__
    again = replace(new, arcana=1)  # a copy of a copy
    assert again == dataclasses.replace(t, arcana=1, wounds=("W1",))
    assert new.arcana == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.arcana = 0  # type: ignore[misc]


def test_replace_refuses_a_name_that_is_not_a_field() -> None:
    t = Tableau(arcana=2)
    with pytest.raises(TypeError, match="Tableau has no field 'arcanna'"):
        replace(t, arcana=3, arcanna=3)
    assert t == Tableau(arcana=2)


def test_with_tableau_is_a_replace_of_the_tableaux_and_shares_the_memo() -> None:
    state = PenumbraState(PenumbraOptions(), ("ada", "bea"), {"ada": Tableau(), "bea": Tableau()})
    t = Tableau(arcana=3)
    new = state.with_tableau("bea", t)
    assert new == dataclasses.replace(state, tableaux={"ada": Tableau(), "bea": t})
    assert new.tableaux["bea"] is t
    assert new.tableaux["ada"] is state.tableaux["ada"]
    assert state.tableaux["bea"] == Tableau()
    assert new.memo is state.memo
    assert replace(new, turn=2).memo is state.memo


@pytest.mark.parametrize(
    ("name", "value"),
    [("reserved_trial", "T9"), ("arcana", 7), ("reserved_contracts", (Card("C1", 2),))],
)
def test_changed_is_dataclasses_replace_of_one_field(name: str, value: object) -> None:
    t = Tableau(arcana=2, trials=(Card("T1", 3),), goals={"G1": 4})
    new = changed(t, name, value)
    assert new == dataclasses.replace(t, **{name: value})  # type: ignore[arg-type]
    assert repr(new) == repr(dataclasses.replace(t, **{name: value}))  # type: ignore[arg-type]
    assert type(new) is Tableau
    assert new.__dict__ is not t.__dict__
    assert t == Tableau(arcana=2, trials=(Card("T1", 3),), goals={"G1": 4})
    state = PenumbraState(PenumbraOptions(), ("ada",), {"ada": t})
    assert changed(state, "turn", 3) == dataclasses.replace(state, turn=3)
    assert changed(state, "turn", 3).memo is state.memo
