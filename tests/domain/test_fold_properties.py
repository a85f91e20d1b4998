"""Properties of the fold (hypothesis): deterministic, incremental equals batch, a JSON round
trip changes nothing, totals equal the sum of ledger entries, a refold (replay) equals the live
state, and a rejected event leaves the state unchanged.

Games are drawn as sequences of candidate payloads; each candidate is offered to `evolve` and
kept only if the rules accept it, so every drawn log is a valid log and the rejections are
exercised too. Source: docs/decisions/0007-pure-domain-fold.md ("Done when": hypothesis properties).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.envelope import Envelope
from contracts.events import ENVELOPE_BY_TYPE
from domain.errors import RuleViolation
from domain.fold import GameState, _refold, evolve, fold
from domain.standings import standings
from tests.domain.fold_checks import (
    assert_json_round_trip_changes_nothing,
    assert_totals_are_ledger_sums,
)

PLAYERS = ("ana", "bo", "cy")
T0 = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
XP = st.dictionaries(
    st.sampled_from(["XP1", "XP2", "XP3", "XP4", "XP5", "XP6"]), st.integers(1, 3), max_size=3
)
player = st.sampled_from(PLAYERS)
card = st.sampled_from(["c1", "c2", "c3", "c4"])


def penumbra_payloads() -> st.SearchStrategy[tuple[str, dict[str, object]]]:
    """A candidate Penumbra event (wire type, payload); the rules decide whether it is kept."""
    return st.one_of(
        st.tuples(
            st.just("penumbra.arcana_gained"),
            st.fixed_dictionaries({"player_id": player, "amount": st.integers(1, 9)}),
        ),
        st.tuples(
            st.just("penumbra.arcana_spent"),
            st.fixed_dictionaries({"player_id": player, "amount": st.integers(1, 5)}),
        ),
        st.tuples(
            st.just("penumbra.trial_completed"),
            st.fixed_dictionaries(
                {
                    "player_id": player,
                    "trial_id": card,
                    "vp": st.integers(0, 10),
                    "xp": XP,
                    "light": st.integers(0, 3),
                    "dark": st.integers(0, 3),
                }
            ),
        ),
        st.tuples(
            st.just("penumbra.contract_reserved"),
            st.fixed_dictionaries({"player_id": player, "contract_id": card}),
        ),
        st.tuples(
            st.just("penumbra.contract_fulfilled"),
            st.fixed_dictionaries(
                {
                    "player_id": player,
                    "contract_id": card,
                    "vp": st.integers(0, 8),
                    "xp": XP,
                    "light": st.integers(0, 2),
                    "dark": st.integers(0, 2),
                }
            ),
        ),
        st.tuples(
            st.just("penumbra.tome_gained"),
            st.fixed_dictionaries({"player_id": player, "tome_id": card, "xp": XP}),
        ),
        st.tuples(
            st.just("penumbra.mortal_wound_taken"),
            st.fixed_dictionaries({"player_id": player, "card_id": card}),
        ),
        st.tuples(
            st.just("penumbra.mark_placed"),
            st.fixed_dictionaries(
                {"player_id": player, "slot_id": card, "vp_under": st.integers(0, 4)}
            ),
        ),
        st.tuples(
            st.just("penumbra.goal_scored"),
            st.fixed_dictionaries({"player_id": player, "goal_id": card, "vp": st.integers(0, 6)}),
        ),
        st.tuples(
            st.just("game.score_corrected"),
            st.fixed_dictionaries(
                {
                    "player_id": player,
                    "amount": st.integers(-5, 5),
                    "reason": st.just("miscount"),
                    "referee": st.just("ref"),
                }
            ),
        ),
        st.tuples(st.just("void"), st.integers(0, 50)),
    )


def _envelope(seq: int, wire_type: str, payload: dict[str, object]) -> Envelope:
    return ENVELOPE_BY_TYPE[wire_type].model_validate(
        {
            "event_id": uuid.UUID(int=seq),
            "game_id": "prop-game",
            "seq": seq,
            "type": wire_type,
            "schema_version": ENVELOPE_BY_TYPE[wire_type].model_fields["schema_version"].default,
            "occurred_at": T0 + timedelta(seconds=seq),
            "actor": "hypothesis",
            "payload": payload,
        }
    )


def _started() -> Envelope:
    players = [{"player_id": p, "name": p.title(), "seat": i + 1} for i, p in enumerate(PLAYERS)]
    return _envelope(1, "penumbra.game_started", {"players": players})


def build_log(candidates: list[tuple[str, object]], end: bool) -> tuple[list[Envelope], int]:
    """Offer each candidate to the rules; keep the accepted ones. Returns (log, rejections)."""
    log = [_started()]
    state: GameState = evolve(None, log[0])
    rejected = 0
    for wire_type, payload in [*candidates, *([("game.ended", {})] if end else [])]:
        if wire_type == "void":
            targets = [
                e
                for e in log[1:]
                if e.type != "game.event_voided" and e.event_id not in state.voided
            ]
            if not targets:
                continue
            target = targets[int(payload) % len(targets)]  # type: ignore[call-overload]
            wire_type, payload = (
                "game.event_voided",
                {"voided_event_id": str(target.event_id), "reason": "dispute", "referee": "ref"},
            )
        event = _envelope(state.seq + 1, wire_type, payload)  # type: ignore[arg-type]
        before = standings(state)
        try:
            state = evolve(state, event)
        except RuleViolation:
            rejected += 1
            assert standings(state) == before  # a rejected event changes nothing
            continue
        log.append(event)
    return log, rejected


games = st.tuples(st.lists(penumbra_payloads(), max_size=40), st.booleans())
PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(games)
def test_fold_is_deterministic(game: tuple[list[tuple[str, object]], bool]) -> None:
    log, _ = build_log(*game)
    assert standings(fold(log)) == standings(fold(list(log)))


@PROPERTY
@given(games)
def test_incremental_equals_batch_at_every_seq(game: tuple[list[tuple[str, object]], bool]) -> None:
    log, _ = build_log(*game)
    state = None
    for n, event in enumerate(log, start=1):
        state = evolve(state, event)
        assert standings(state) == standings(fold(log, upto_seq=n)) == standings(fold(log[:n]))


@PROPERTY
@given(games)
def test_json_round_trip_changes_nothing(game: tuple[list[tuple[str, object]], bool]) -> None:
    log, _ = build_log(*game)
    assert_json_round_trip_changes_nothing(log)


@PROPERTY
@given(games)
def test_totals_equal_the_sum_of_ledger_entries(
    game: tuple[list[tuple[str, object]], bool],
) -> None:
    log, _ = build_log(*game)
    assert_totals_are_ledger_sums(fold(log))


@PROPERTY
@given(games)
def test_replay_from_history_equals_the_live_state(
    game: tuple[list[tuple[str, object]], bool],
) -> None:
    log, _ = build_log(*game)
    live = fold(log)
    replayed = _refold(live.history, live.voided)
    assert standings(replayed) == standings(live)
    assert replayed.ledger == live.ledger
