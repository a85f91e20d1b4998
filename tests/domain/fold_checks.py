"""Checks both fold property suites make of every log they draw (tests/domain/test_fold_properties.py
on generated Penumbra logs, test_fold_properties_simulated.py on simulated games of both
rulesets); the properties are those of docs/decisions/0007-pure-domain-fold.md ("Done when")."""

from __future__ import annotations

from collections.abc import Sequence

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from domain.fold import GameState, fold
from domain.standings import score_entries, standings


def assert_json_round_trip_changes_nothing(log: Sequence[Envelope]) -> None:
    """Every event dumped to its JSON and parsed back is equal to itself, and the parsed log
    folds to the same standings. Raises AssertionError otherwise."""
    again = [parse_event_json(dump_event_json(e)) for e in log]
    assert again == list(log)
    assert standings(fold(again)) == standings(fold(list(log)))


def assert_totals_are_ledger_sums(state: GameState) -> None:
    """Each player's total equals the sum of their ledger entries and the sum of their
    categories. Raises AssertionError otherwise."""
    entries = score_entries(state)
    for line in standings(state).players:
        assert line.total == sum(e.amount for e in entries if e.player_id == line.player_id)
        assert line.total == sum(line.categories.values())
