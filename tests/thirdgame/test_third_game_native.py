"""A game registered at run time decodes natively (its envelope's checks not run in Python)
at the door, for a batch and for a stored line, with the answers of the published validators;
once removed, its events are refused as the published validators refuse them (also when it is
removed while the batch validator is being built), and every envelope model reads as complete.
Source: contracts/native.py; docs/architecture/adding-a-game.md ("a game is one unit").
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

import contracts.events
import contracts.native
from contracts import games
from contracts.games import registered
from services.usecases.parse import _published, parse_body
from services.usecases.refusal import Refusal
from tests.envelope_calls import envelope_calls
from tests.thirdgame.game import GAME


def _line(seq: int, wire_type: str, payload: dict[str, object]) -> str:
    return json.dumps(
        {
            "event_id": str(uuid.UUID(int=seq)),
            "game_id": "dice-n",
            "seq": seq,
            "type": wire_type,
            "schema_version": 1,
            "occurred_at": f"2026-12-01T10:{seq:02d}:00.5+01:00",
            "recorded_at": "2026-12-01T11:00:00Z",
            "actor": "test",
            "payload": payload,
        }
    )


LINES = [
    _line(1, "dice.game_started", {"players": [{"player_id": "ann", "name": "Ann", "seat": 1}]}),
    _line(2, "dice.rolled", {"player_id": "ann", "pips": 4}),
]
BATCH = ("[" + ",".join(LINES) + "]").encode()


_checks_run = envelope_calls


def _dumps(events: list[Any]) -> list[tuple[type, str]]:
    return [(type(e), e.model_dump_json()) for e in events]


def _complete() -> bool:
    models = contracts.events.ENVELOPE_BY_TYPE.values()
    return all(m.__dict__.get("__pydantic_complete__") is True for m in models)


def test_a_game_registered_later_decodes_natively_then_is_refused_as_before() -> None:
    assert contracts.events.NATIVE_EVENT_LIST is not None  # built before the game joins
    with registered(GAME):
        assert _complete()
        seen, events = _checks_run(parse_body, BATCH, "body")
        assert seen == []
        assert _dumps(events) == _dumps(_published(BATCH, "body"))
        seen, event = _checks_run(contracts.events.parse_event_json, LINES[1])
        assert seen == []
        assert _dumps([event]) == _dumps(_published(LINES[1].encode(), "body"))
    assert _complete()
    for body in (BATCH, LINES[1].encode()):
        assert _refusal(_published, body) is not None
        assert _refusal(parse_body, body) == _refusal(_published, body)


def _refusal(parse: Any, body: bytes) -> dict[str, Any] | None:
    try:
        parse(body, "body")
    except Refusal as refusal:
        return refusal.to_dict()
    return None


def test_a_game_removed_while_the_batch_validator_is_built_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = contracts.native.native_validator
    removed: list[bool] = []

    def build(schema: Any) -> Any:
        if schema.get("type") == "list" and not removed:
            removed.append(True)
            games.unregister(GAME.key)  # another thread, meanwhile
        return real(schema)

    games.register(GAME)
    try:
        vars(contracts.events).pop("NATIVE_EVENT_LIST", None)
        monkeypatch.setattr(contracts.native, "native_validator", build)
        assert contracts.events.NATIVE_EVENT_LIST is not None
    finally:
        if GAME.key in games.GAMES:
            games.unregister(GAME.key)
    try:
        assert removed
        assert _refusal(_published, BATCH) is not None
        assert _refusal(parse_body, BATCH) == _refusal(_published, BATCH)
    finally:
        vars(contracts.events).pop("NATIVE_EVENT_LIST", None)  # rebuilt on next use
