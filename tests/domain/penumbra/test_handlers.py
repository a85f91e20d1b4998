"""Penumbra's `handlers` table, which `domain.fold.Folder` calls without `apply`: the handler of
each in-play event answers exactly what `apply` answers (state and ledger entries, or the same
refusal), on simulated games and after the final turns; and `ledger_changes` (which computes
only the categories whose inputs changed, from a memo) answers what the full `category_vp` of
each tableau before and after gives."""

from __future__ import annotations

from uuid import UUID

import pytest

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, fold
from domain.ledger import LedgerEntry, Resource
from domain.logrules import KINDS
from domain.penumbra import RULESET as PENUMBRA
from domain.penumbra.categories import RULE_LINE, category_vp
from domain.penumbra.ruleset import _MOVES, HANDLERS, ledger_changes
from domain.penumbra.state import PenumbraState, Tableau
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


def _arcana_entry(
    pid: str, before: Tableau, after: Tableau, event_id: UUID, seq: int
) -> list[LedgerEntry]:
    """The ARCANA entry of a supply change, the slow way (what the fold wrote before it built
    the entries inline, docs/profiles/fold-event-cost.md)."""
    lost = after.arcana_lost - before.arcana_lost
    if after.arcana == before.arcana and not lost:
        return []
    note = f"supply {before.arcana} -> {after.arcana}" + (
        f", {lost} lost over the cap ({RULE_LINE['arcana']})" if lost else ""
    )
    amount = after.arcana - before.arcana
    return [
        LedgerEntry(
            event_id, seq, pid, Resource.ARCANA, "arcana", amount, RULE_LINE["arcana"], note
        )
    ]


def _reference(old: PenumbraState, new: PenumbraState, event: Envelope) -> list[LedgerEntry]:
    """The ledger changes of one event the slow way: every category of every tableau."""
    entries: list[LedgerEntry] = []
    for pid in new.seats:
        before, after = old.tableaux[pid], new.tableaux[pid]
        entries += _arcana_entry(pid, before, after, event.event_id, event.seq)
        was, now = category_vp(before, old.options), category_vp(after, new.options)
        for key, value in now.items():
            if value != was[key]:
                note = f"{key} {was[key]} -> {value} VP"
                entries.append(
                    LedgerEntry(
                        event.event_id,
                        event.seq,
                        pid,
                        Resource.VP,
                        key,
                        value - was[key],
                        RULE_LINE[key],
                        note,
                    )
                )
    return entries


@pytest.mark.parametrize("seed", [3, 11, 2026])
def test_ledger_changes_are_the_full_category_diff(seed: int) -> None:
    pairs = _in_play(list(simulate_game("penumbra", seed)))
    kinds = set()
    for rules, event in pairs:
        assert isinstance(rules, PenumbraState)
        new, entries = HANDLERS[type(event.payload)](rules, event, event.payload)
        assert list(entries) == _reference(rules, new, event)
        assert ledger_changes(rules, new, event) == entries  # again, from the memo's "after"
        kinds |= {(e.resource, e.category) for e in entries}
    assert len(kinds) >= 8  # Arcana supply and VP, and most categories, were scored
