"""The dispute view's hypothetical void (`domain.whatif.evolve_void`) equals `evolve` for every
event of the example games and of a long simulated one (standings, ledger, totals, rule
broken), and its refold stops where it rejoins the game's fold: a dispute of an early event of
a 2,000-event game folds a mark's worth of events, not the rest of the game (counted in calls
of the fold's step, not in time)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import domain.fold
from contracts.envelope import Envelope
from contracts.events import parse_event, parse_event_json
from domain.errors import RuleViolation
from domain.fold import MARK_EVERY, GameState, evolve, fold
from domain.standings import standings
from domain.whatif import evolve_void
from services.usecases.readmodels.replay import compare_state
from tests.pipeline.factory import game_log

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def example(name: str) -> list[Envelope]:
    text = (EXAMPLES / f"{name}.jsonl").read_text().splitlines()
    return [parse_event_json(line) for line in text if line.strip()]


def void_of(state: GameState, target: Envelope) -> Envelope:
    return parse_event(
        {
            "event_id": str(uuid.uuid4()),
            "game_id": state.game_id,
            "seq": state.seq + 1,
            "type": "game.event_voided",
            "schema_version": 1,
            "occurred_at": NOW.isoformat(),
            "actor": "test",
            "payload": {
                "voided_event_id": str(target.event_id),
                "reason": "what if",
                "referee": "test",
                "reopens_game": target.type == "game.ended",
            },
        }
    )


def outcome(state: GameState, void: Envelope, how: Any) -> tuple[Any, ...]:
    try:
        got = how(state, void)
    except RuleViolation as error:
        return ("violation", error.rule)
    s = got[0] if isinstance(got, tuple) else got
    # the JSON and the items in order: the answer's bytes, not only its values, must be evolve's
    # (a set's order, which follows the hash seed, made a replay worker's dispute differ)
    totals = list(s.totals.items())
    return (standings(s).model_dump_json(), tuple(s.ledger), totals, s.seq, s.status, s.rules)


def cases() -> Iterator[tuple[str, list[Envelope]]]:
    yield "penumbra-3p", example("penumbra-3p")
    yield "trickerion-4p", example("trickerion-4p-dark-alley-academy")
    yield "corrections-200", game_log("whatif", 200, seed=3)


@pytest.mark.parametrize(("name", "events"), list(cases()), ids=lambda v: str(v)[:20])
def test_every_hypothetical_void_equals_evolve(name: str, events: list[Envelope]) -> None:
    state = fold(events)
    compared = 0
    for target in events[1:]:
        if target.type == "game.event_voided" or target.event_id in state.voided:
            continue
        void = void_of(state, target)
        assert outcome(state, void, evolve_void) == outcome(state, void, evolve), target.seq
        compared += 1
    assert compared >= len(events) // 2


def test_a_dispute_of_an_early_event_folds_a_marks_worth_not_the_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = game_log("whatif-long", 2000, seed=1)
    state = fold(events)
    steps = 0
    step = domain.fold._step

    def counted(*args: Any) -> Any:
        nonlocal steps
        steps += 1
        return step(*args)

    monkeypatch.setattr(domain.fold, "_step", counted)
    answer = compare_state(state, str(events[2].event_id), NOW)  # seq 3, a correction
    assert answer["event"]["seq"] == 3
    target = events[2].payload
    expected = {"ann": 0, "bob": 0, "cat": 0} | {target.player_id: -target.amount}  # type: ignore[attr-defined]
    assert answer["delta"] == expected
    assert steps <= 2 * MARK_EVERY, steps  # was 1,999: every event after seq 1
    steps = 0
    late = compare_state(state, str(events[1990].event_id), NOW)
    assert late["event"]["seq"] == 1991
    assert steps <= 2 * MARK_EVERY, steps


def test_a_disputed_correction_leaves_no_empty_category() -> None:
    from services.simulator.tables import simulate_game

    log = list(simulate_game("trickerion", 1))
    state = fold(log, upto_seq=99)
    target = state.history[4]
    assert target.type == "game.score_corrected"  # edda -1 Fame, "recount in turn 2"
    void = void_of(state, target)
    disputed, evolved = evolve_void(state, void)[0], evolve(state, void)
    assert dict(disputed.breakdown) == dict(evolved.breakdown)
    assert standings(disputed) == standings(evolved)


@pytest.mark.parametrize("game", ["trickerion", "penumbra"])
def test_disputes_of_simulated_games_have_evolves_breakdowns_in_its_order(game: str) -> None:
    """Each player's categories (keys, order and sums) and the shifted marks' equal `evolve`'s
    for a dispute of every event of a simulated game (seed 1 has score corrections)."""
    from services.simulator.tables import simulate_game

    state = fold(list(simulate_game(game, 1)))
    for target in state.history:
        if target.type in ("game.started", "game.event_voided"):
            continue
        void = void_of(state, target)
        try:
            evolved = evolve(state, void)
        except RuleViolation:
            continue
        disputed = evolve_void(state, void)[0]
        assert [list(c.items()) for c in disputed.breakdown.values()] == [
            list(c.items()) for c in evolved.breakdown.values()
        ], target.seq
        assert [dict(m.breakdown) for m in disputed.marks] == [
            dict(m.breakdown) for m in evolved.marks
        ], target.seq
