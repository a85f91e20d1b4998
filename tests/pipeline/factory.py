"""Event factories for pipeline tests: a Trickerion game start and common events only
(the game rulesets are written elsewhere; corrections score under every ruleset)."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

from contracts.envelope import Envelope
from contracts.events import parse_event
from services.usecases.record import BodySource

PLAYERS = ("ann", "bob", "cat")


def envelope(game_id: str, seq: int, type_: str, payload: dict[str, Any], **extra: Any) -> Envelope:
    """One validated envelope with a fresh event id."""
    raw = {
        "event_id": str(uuid.uuid4()),
        "game_id": game_id,
        "seq": seq,
        "type": type_,
        "schema_version": extra.pop("schema_version", None),
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "table-1",
        "payload": payload,
        **extra,
    }
    if raw["schema_version"] is None:
        del raw["schema_version"]
    return parse_event(raw)


def started(game_id: str, players: tuple[str, ...] = PLAYERS) -> Envelope:
    """`trickerion.game_started` at seq 1."""
    seated = [
        {"player_id": p, "name": p.title(), "seat": i + 1, "initiative": i + 1}
        for i, p in enumerate(players)
    ]
    return envelope(game_id, 1, "trickerion.game_started", {"players": seated})


def corrected(game_id: str, seq: int, player: str, amount: int) -> Envelope:
    """`game.score_corrected` (v2) giving `amount` Fame to `player`."""
    return envelope(
        game_id,
        seq,
        "game.score_corrected",
        {"player_id": player, "amount": amount, "reason": "test", "referee": "ref"},
    )


def game_log(
    game_id: str, n: int, seed: int = 0, players: tuple[str, ...] = PLAYERS
) -> list[Envelope]:
    """A valid log of `n` events: the start, then random corrections."""
    rng = random.Random(f"{game_id}-{seed}")
    return [started(game_id, players)] + [
        corrected(game_id, seq, rng.choice(players), rng.randint(-3, 9)) for seq in range(2, n + 1)
    ]


def wire_body(*events: Envelope) -> bytes:
    """`events` as one HTTP append's body: a JSON array of their wire form."""
    return json.dumps([e.to_wire() for e in events]).encode()


def body_source(raw: bytes) -> BodySource:
    """`raw` as the record use case reads a request's body."""

    async def read() -> bytes:
        return raw

    return read
