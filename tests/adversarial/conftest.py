"""Fixtures for the adversarial (black-box) tests: the whole HTTP stack in-process (`stack`,
shared with the web tests), a redis-server of the test's own (`server`, shared with the door
tests), the inbox consumer's settings, and raw JSON copies of the bundled example games under
fresh ids.

The games are sent as raw dicts, never built with the project's own models, so a test sees
exactly what a hostile or clumsy integrator would send.
"""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from services.platform.settings import ServiceSettings
from tests.doors.conftest import server  # noqa: F401  (re-exported fixture)
from tests.web.conftest import Stack, stack  # noqa: F401  (re-exported fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
PENUMBRA = EXAMPLES / "penumbra-3p.jsonl"
TRICKERION = EXAMPLES / "trickerion-4p-dark-alley-academy.jsonl"


@pytest.fixture
def inbox_settings(clean_redis_url: str) -> ServiceSettings:
    """The inbox consumer's settings on a clean Redis: 4 shards, batches of 4 entries (a
    hostile entry shares its batch with valid ones)."""
    return ServiceSettings(redis_url=clean_redis_url, shards=4, inbox_batch=4)


def example_game(game_id: str, path: Path = PENUMBRA) -> list[dict[str, Any]]:
    """The example log at `path` as raw event dicts, moved to `game_id` with fresh event ids
    (voided_event_id references follow their targets)."""
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    new_ids = {e["event_id"]: str(uuid.uuid4()) for e in events}
    out = []
    for event in events:
        event = copy.deepcopy(event)
        event["game_id"] = game_id
        event["event_id"] = new_ids[event["event_id"]]
        target = event["payload"].get("voided_event_id")
        if target is not None:
            event["payload"]["voided_event_id"] = new_ids[target]
        out.append(event)
    return out


def common_event(game_id: str, seq: int, type_: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A raw common event (`game.*`) for `game_id` at `seq`, with a fresh event id."""
    return {
        "event_id": str(uuid.uuid4()),
        "game_id": game_id,
        "seq": seq,
        "type": type_,
        "schema_version": 2 if type_ == "game.score_corrected" else 1,
        "occurred_at": "2026-11-28T20:00:00Z",
        "actor": "referee",
        "payload": payload,
    }


def void(game_id: str, seq: int, target: str) -> dict[str, Any]:
    """A raw `game.event_voided` of event `target`."""
    return common_event(
        game_id,
        seq,
        "game.event_voided",
        {"voided_event_id": target, "reason": "disputed", "referee": "Olga"},
    )


def correction(game_id: str, seq: int, player: str, amount: int) -> dict[str, Any]:
    """A raw `game.score_corrected` (v2) of `amount` VP/Fame to `player`."""
    return common_event(
        game_id,
        seq,
        "game.score_corrected",
        {"player_id": player, "amount": amount, "reason": "missed", "referee": "Olga"},
    )
