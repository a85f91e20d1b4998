"""The Trial and Contract holder scans of `domain.penumbra.cards` (plain loops, and no scan at
all for a Contract nobody has reserved or fulfilled: its printed values are not kept) answer
what the plain reading of the tableaux answers, for every card id of simulated games, in every
state they pass through."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.fold import Folder
from domain.penumbra.cards import _contract_holder, _trial_holder
from domain.penumbra.state import PenumbraState
from services.simulator.tables import simulate_game


def _trial_reference(state: PenumbraState, trial_id: str) -> tuple[str | None, bool]:
    reserver = next(
        (pid for pid, t in state.tableaux.items() if t.reserved_trial == trial_id), None
    )
    done = any(c.card_id == trial_id for t in state.tableaux.values() for c in t.trials)
    return reserver, done


def _contract_reference(state: PenumbraState, contract_id: str) -> tuple[str | None, bool]:
    reserver = next(
        (
            pid
            for pid, t in state.tableaux.items()
            if any(c.card_id == contract_id for c in t.reserved_contracts)
        ),
        None,
    )
    done = any(c.card_id == contract_id for t in state.tableaux.values() for c in t.contracts)
    return reserver, done


def _check_game(seed: int) -> set[tuple[str, bool]]:
    events = list(simulate_game("penumbra", seed))
    ids = {
        value
        for e in events
        for name, value in e.payload.__dict__.items()
        if name in ("trial_id", "contract_id")
    } | {"never-seen"}
    seen: set[tuple[str, bool]] = set()
    folder: Folder[PenumbraState] = Folder()
    for event in events:
        folder.add(event)
        rules = folder.state.rules
        if not isinstance(rules, PenumbraState):
            continue
        for card_id in ids:
            trial = _trial_holder(rules, card_id)
            contract = _contract_holder(rules, card_id)
            assert trial == _trial_reference(rules, card_id)
            assert contract == _contract_reference(rules, card_id)
            seen |= {("trial", trial[0] is not None), ("trial_done", trial[1])}
            seen |= {("contract", contract[0] is not None), ("contract_done", contract[1])}
    return seen


@pytest.mark.parametrize("seed", [5, 2026])
def test_holders_cover_every_answer(seed: int) -> None:
    seen = _check_game(seed)
    assert seen == {
        (k, b) for k in ("trial", "trial_done", "contract", "contract_done") for b in (True, False)
    }


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_holders_equal_the_plain_reading(seed: int) -> None:
    _check_game(seed)
