"""Penumbra's `handlers` table, which `domain.fold.Folder` calls without `apply`: the handler of
each in-play event answers exactly what `apply` answers (state and ledger entries, or the same
refusal), on simulated games and after the final turns."""

from __future__ import annotations

import pytest

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, fold
from domain.logrules import KINDS
from domain.penumbra import RULESET as PENUMBRA
from domain.penumbra.ruleset import _MOVES, HANDLERS
from services.simulator.tables import simulate_game
from tests.domain.penumbra.builders import PenumbraGame


def test_the_table_is_applys_own_and_names_every_move() -> None:
    assert PENUMBRA.handlers is HANDLERS
    assert set(HANDLERS) == set(_MOVES)
    assert all(KINDS[cls] is None for cls in HANDLERS)


def _in_play(log: list[Envelope]) -> list[tuple[object, Envelope]]:
    """(rules state before the event, event) for each in-play event of `log`."""
    folder: Folder[object] = Folder()
    pairs = []
    for event in log:
        if folder.started and type(event.payload) in HANDLERS:
            pairs.append((folder.state.rules, event))
        folder.add(event)
    return pairs


@pytest.mark.parametrize("seed", [1, 7, 2026])
def test_each_handler_answers_what_apply_answers(seed: int) -> None:
    pairs = _in_play(list(simulate_game("penumbra", seed)))
    assert len(pairs) > 50
    for rules, event in pairs:
        by_handler = HANDLERS[type(event.payload)](rules, event, event.payload)  # type: ignore[arg-type]
        assert by_handler == PENUMBRA.apply(rules, event)  # type: ignore[arg-type]


def test_after_the_final_turns_both_refuse_alike() -> None:
    g = PenumbraGame(["ada", "bea"])
    g.prophecy("pr", by="ada")
    g.final_turn("ada")
    g.final_turn("bea")
    rules = g.state().rules
    late = g.arcana_gained("ada", 1)
    with pytest.raises(RuleViolation) as by_apply:
        PENUMBRA.apply(rules, late)
    with pytest.raises(RuleViolation) as by_handler:
        HANDLERS[type(late.payload)](rules, late, late.payload)
    assert by_apply.value.rule == by_handler.value.rule == "penumbra.end.all_final_turns_taken"
    assert by_apply.value.message == by_handler.value.message
    assert by_apply.value.field == by_handler.value.field == "type"
    with pytest.raises(RuleViolation, match="all_final_turns_taken"):
        fold(g.events)
