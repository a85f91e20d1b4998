"""A folder that writes its Trickerion rules state in place (`Ruleset.apply`'s owned states,
`domain.fold.Folder`) against one that copies it per event (no `owned`: the fold as it was):
the same states, ledger and standings event by event, whatever is handed out, forked,
refused, voided or disputed on the way; nothing handed out changes afterwards. The append's
plan (`services.usecases.plan.plan_append`) refusing a batch midway leaves its cached state
as it was."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, GameState, evolve, fold
from domain.standings import standings_json
from domain.whatif import evolve_void
from services.usecases.plan import plan_append
from services.usecases.statecache import Known
from tests.domain.referee import referee_event
from tests.domain.test_fold_properties_simulated import _log, games

PROPERTY = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _copying() -> Folder[Any]:
    """A folder that never owns its rules state: every event copies it (the reference)."""
    folder: Folder[Any] = Folder()
    folder._thaw = None  # set again by `_load`: see `_reference_add`
    return folder


def _reference_add(folder: Folder[Any], event: Envelope) -> None:
    folder.add(event)
    folder._thaw, folder._rules_owned = None, False


def _value(state: GameState) -> tuple[object, ...]:
    """What a state shows, by value."""
    return (
        state.rules,
        list(state.ledger),
        dict(state.totals),
        {pid: dict(cats) for pid, cats in state.breakdown.items()},
        state.seq,
        state.status,
        state.voided,
    )


def _snapshot(state: GameState) -> tuple[object, ...]:
    """`_value` and the rules' repr (every book as it is now: `state.rules` compared with itself
    later would not see it written in place)."""
    return (repr(state.rules), *_value(state))


def _disputed(state: GameState, void: Envelope, how: Any = None) -> tuple[object, ...]:
    """The rules, ledger and totals after `void` (`evolve_void`, or `how`), or its refusal;
    not the breakdown (a zero category the dispute keeps: test_whatif's xfail)."""
    try:
        after = how(state, void) if how is not None else evolve_void(state, void)[0]
    except RuleViolation as refused:
        return ("refused", refused.rule)
    return _value(after)[:3]


def _refused(state: GameState, rng: random.Random) -> Any:
    """An event the rules refuse after counting some of it: Trickerion Fame and Coins, then
    Shards the player does not have; Penumbra a correction for no player."""
    pid = state.players[rng.randrange(len(state.players))].player_id
    if state.game == "trickerion":
        shards = state.rules.books[pid].shards
        return referee_event(
            state,
            "trickerion.resources_changed",
            {
                "player_id": pid,
                "fame": rng.randint(1, 5),
                "coins": rng.randint(0, 3),
                "shards": -shards - 1,
                "reason": "other",
            },
        )
    return referee_event(
        state,
        "game.score_corrected",
        {"player_id": "nobody", "amount": 3, "reason": "recount", "referee": "ref"},
    )


@PROPERTY
@given(games, st.randoms(use_true_random=False))
def test_a_folder_owning_its_rules_folds_as_one_copying_them_whatever_happens_between(
    game: tuple[str, int, list[tuple[int, int, int]]], rng: random.Random
) -> None:
    check_owned_against_copying(_log(game), rng)


def check_owned_against_copying(log: list[Envelope], rng: random.Random) -> None:
    """The property's body (the games drawn by the caller)."""
    folder: Folder[Any] = Folder()
    reference = _copying()
    handed: list[tuple[GameState, tuple[object, ...], bytes]] = []
    for i, event in enumerate(log):
        if folder.started and rng.random() < 0.2:  # refused midway: both unchanged
            bad = _refused(reference.state, rng)
            with pytest.raises(RuleViolation):
                folder.add(bad)
        folder.add(event)
        _reference_add(reference, event)
        if rng.random() < 0.3:
            state = folder.state
            assert _value(state) == _value(reference.state), f"seq {event.seq}"
            handed.append((state, _snapshot(state), standings_json(state)))
            if i + 1 < len(log) and rng.random() < 0.3:  # a second writer from the same state
                fork = evolve(state, log[i + 1])
                handed.append((fork, _snapshot(fork), standings_json(fork)))
                # a void of that state disputed (the refold stops where it rejoins)
                target = (
                    state.history[rng.randrange(1, state.seq)]
                    if state.seq > 1 and rng.random() < 0.3
                    else None
                )
                if target is not None:
                    void = referee_event(
                        state,
                        "game.event_voided",
                        {"voided_event_id": str(target.event_id), "reason": "d", "referee": "r"},
                    )
                    assert _disputed(state, void) == _disputed(state, void, evolve), target.seq
    final = folder.state
    assert _value(final) == _value(reference.state) == _value(fold(log))
    assert standings_json(final) == standings_json(fold(log))
    for state, value, text in handed:  # nothing handed out changed since
        assert _snapshot(state) == value, f"handed out at seq {state.seq}"
        assert standings_json(fold(log, upto_seq=state.seq)) == text or state.voided


@PROPERTY
@given(games, st.randoms(use_true_random=False))
def test_a_plan_refused_midway_leaves_the_cached_state_as_it_was(
    game: tuple[str, int, list[tuple[int, int, int]]], rng: random.Random
) -> None:
    """The append's check folds a batch onto the cached state's own working folder; a batch
    refused at its last event leaves the cached state (and the next plan on it) unchanged."""
    log = _log(game)
    cut = rng.randrange(2, len(log) - 1)
    cached = Known.of(fold(log[:cut]))
    before = _snapshot(cached.state)
    batch = log[cut : cut + rng.randint(1, 20)]
    ahead = fold(log[: cut + len(batch)])
    bad = _refused(ahead, rng)
    with pytest.raises(RuleViolation):
        plan_append(ahead.game_id, [*batch, bad], cached)
    assert _snapshot(cached.state) == before
    plan = plan_append(ahead.game_id, batch, cached)
    assert plan.state is not None
    assert _value(plan.state) == _value(ahead)
    assert standings_json(plan.state) == standings_json(ahead)
    assert _snapshot(cached.state) == before
