"""The fold's properties on whole simulated games of both rulesets (any Trickerion modules),
with referee voids and corrections drawn on top: deterministic, incremental equals batch, JSON
round trip, totals equal ledger sums, a refold (replay) equals the live state, and a void is
scored exactly as a log in which the voided event never counted.

The simulator (`services.simulator`) is the generator; the rules accept or reject each
referee event. Source: docs/decisions/0007-pure-domain-fold.md ("Done when"), docs/decisions/0007-pure-domain-fold.md (the domain accepts the simulator).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import _refold, evolve, fold
from domain.standings import standings
from services.simulator.tables import simulate_game
from tests.domain.fold_checks import (
    assert_json_round_trip_changes_nothing,
    assert_totals_are_ledger_sums,
)
from tests.domain.referee import referee_event

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=10_000)
kinds = st.sampled_from(["trickerion", "penumbra"])


def with_referee(log: list[Envelope], picks: list[tuple[int, int, int]]) -> list[Envelope]:
    """Append voids / corrections chosen by `picks` (kind, target index, amount) after the log."""
    state = fold(log)
    out = list(log)
    for kind, index, amount in picks:
        if kind == 0:
            target = out[1 + index % (len(out) - 1)]
            event = referee_event(
                state,
                "game.event_voided",
                {"voided_event_id": str(target.event_id), "reason": "dispute", "referee": "ref"},
            )
        else:
            player = state.players[index % len(state.players)].player_id
            event = referee_event(
                state,
                "game.score_corrected",
                {"player_id": player, "amount": amount, "reason": "recount", "referee": "ref"},
            )
        try:
            state = evolve(state, event)
        except RuleViolation:
            continue
        out.append(event)
    return out


games = st.tuples(
    kinds,
    seeds,
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 10_000), st.integers(-4, 4)), max_size=4),
)


def _log(game: tuple[str, int, list[tuple[int, int, int]]]) -> list[Envelope]:
    kind, seed, picks = game
    return with_referee(list(simulate_game(kind, seed)), picks)  # type: ignore[arg-type]


@PROPERTY
@given(games)
def test_simulated_game_folds_final_and_deterministically(
    game: tuple[str, int, list[tuple[int, int, int]]],
) -> None:
    log = _log(game)
    first, second = fold(log), fold(list(log))
    ended = next(e for e in log if e.type == "game.ended")
    # A void of `game.ended` (a premature end) reopens the game; otherwise it is final.
    assert first.status == ("in_progress" if ended.event_id in first.voided else "final")
    assert standings(first) == standings(second)


@PROPERTY
@given(games, st.data())
def test_incremental_equals_batch_at_drawn_seqs(
    game: tuple[str, int, list[tuple[int, int, int]]], data: st.DataObject
) -> None:
    log = _log(game)
    checkpoints = set(data.draw(st.lists(st.integers(1, len(log)), min_size=1, max_size=5)))
    state = None
    for n, event in enumerate(log, start=1):
        state = evolve(state, event)
        if n in checkpoints:
            assert standings(state) == standings(fold(log, upto_seq=n))


@PROPERTY
@given(games)
def test_json_round_trip_changes_nothing(game: tuple[str, int, list[tuple[int, int, int]]]) -> None:
    assert_json_round_trip_changes_nothing(_log(game))


@PROPERTY
@given(games)
def test_totals_equal_the_sum_of_ledger_entries(
    game: tuple[str, int, list[tuple[int, int, int]]],
) -> None:
    assert_totals_are_ledger_sums(fold(_log(game)))


@PROPERTY
@given(games)
def test_replay_equals_live_and_a_void_scores_as_if_the_event_never_counted(
    game: tuple[str, int, list[tuple[int, int, int]]],
) -> None:
    live = fold(_log(game))
    assert standings(_refold(live.history, live.voided)) == standings(live)
    # Independent check of a void: drop the voided events (and the voids) and renumber the seqs.
    kept = [
        e for e in live.history if e.event_id not in live.voided and e.type != "game.event_voided"
    ]
    renumbered = [e.model_copy(update={"seq": i}) for i, e in enumerate(kept, start=1)]
    without = standings(fold(renumbered))
    assert [(p.player_id, p.total, p.categories) for p in without.players] == [
        (p.player_id, p.total, p.categories) for p in standings(live).players
    ]


def test_the_void_check_would_notice_a_void_that_changed_nothing() -> None:
    log = list(simulate_game("penumbra", 7))
    state = fold(log)
    voided = None
    for target in (e for e in log if e.type == "penumbra.trial_completed"):
        # with_referee drops a refused void (a later event depended on the target, e.g. S1)
        voided = with_referee(log, [(0, log.index(target) - 1, 0)])
        if len(voided) > len(log):
            break
    assert voided is not None
    assert len(voided) == len(log) + 1
    live = fold(voided)
    assert live.voided
    assert live.seq == state.seq + 1
    broken = replace(live, voided=frozenset())  # pretend the void did nothing
    assert standings(_refold(broken.history, broken.voided)) != standings(live)
