"""Referee events built on a folded state, for the properties that void and correct in the
middle of play (the standings kept incrementally, the projector's stored view)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from contracts.events import ENVELOPE_BY_TYPE
from domain.errors import RuleViolation
from domain.fold import Folder, GameState
from services.simulator.tables import simulate_game

SEEDS = st.integers(min_value=0, max_value=10_000)
"""Simulator seeds."""
KINDS = st.sampled_from(["trickerion", "penumbra"])
"""The games the simulator plays."""
PICKS = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=6)
"""Referee events to try in the middle of play, each chosen by one number."""


def middle_of_play(
    kind: str, seed: int, each: Callable[[GameState[Any]], None] | None = None
) -> Folder[Any]:
    """A `Folder` holding the first two thirds of simulated game `kind` `seed` (voids there
    make later events fold again); `each` sees the state after every event."""
    log = list(simulate_game(kind, seed, 0))
    folder: Folder[Any] = Folder()
    for event in log[: len(log) * 2 // 3]:
        folder.add(event)
        if each is not None:
            each(folder.state)
    return folder


def referee_event(state: GameState[Any], wire_type: str, payload: dict[str, object]) -> Any:
    """The next event of `state`'s game (seq + 1, a stable id), by the referee."""
    return ENVELOPE_BY_TYPE[wire_type].model_validate(
        {
            "event_id": uuid.uuid5(uuid.NAMESPACE_URL, f"{state.game_id}/{state.seq + 1}"),
            "game_id": state.game_id,
            "seq": state.seq + 1,
            "type": wire_type,
            "schema_version": ENVELOPE_BY_TYPE[wire_type].model_fields["schema_version"].default,
            "occurred_at": state.history[-1].occurred_at,
            "actor": "referee",
            "payload": payload,
        }
    )


def void_of(state: GameState[Any], pick: int) -> Any:
    """A void of one of `state`'s events after the first, chosen by `pick`."""
    target = state.history[1 + pick % (state.seq - 1)]
    payload: dict[str, object] = {
        "voided_event_id": str(target.event_id),
        "reason": "dispute",
        "referee": "ref",
    }
    return referee_event(state, "game.event_voided", payload)


def correction_of(state: GameState[Any], pick: int, amount: int, category: str) -> Any:
    """A score correction of `amount` in `category` for the player chosen by `pick`."""
    payload: dict[str, object] = {
        "player_id": state.players[pick % len(state.players)].player_id,
        "amount": amount,
        "category": category,
        "reason": "miscount",
        "referee": "ref",
    }
    return referee_event(state, "game.score_corrected", payload)


def referee_pick(state: GameState[Any], pick: int, *, unlabelled: bool = False) -> Any:
    """The referee event `pick` chooses on `state`: a void or a correction (of `pick % 7 - 3`
    Fame/VP) in turn; with `unlabelled`, one pick in three instead corrects (by a non-zero
    amount) in "house_bonus", a category no ruleset labels (a new label changes every
    player's breakdown)."""
    if not unlabelled:
        if pick % 2:
            return void_of(state, pick)
        return correction_of(state, pick, pick % 7 - 3, "correction")
    if pick % 3 == 0:
        return void_of(state, pick)
    category = "correction" if pick % 3 == 1 else "house_bonus"
    return correction_of(state, pick, pick % 7 - 3 or 1, category)


def referee_through(
    folder: Folder[Any],
    picks: list[int],
    check: Callable[[GameState[Any]], None],
    *,
    unlabelled: bool = False,
) -> int:
    """Add to `folder` the referee event each of `picks` chooses (`referee_pick`), calling
    `check` on the state after each one the rules accept; a refused one (`RuleViolation`,
    e.g. a void that would break a later event) changes nothing. Returns how many were
    applied."""
    applied = 0
    for pick in picks:
        try:
            folder.add(referee_pick(folder.state, pick, unlabelled=unlabelled))
        except RuleViolation:
            continue
        applied += 1
        check(folder.state)
    return applied
