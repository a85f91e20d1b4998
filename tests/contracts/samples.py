"""Stored events of an older schema version, shared by the tests that read them (the upcast on
read: docs/decisions/0008-upcast-on-read.md)."""

from __future__ import annotations

from typing import Any


def v1_score_correction(game_id: str) -> dict[str, Any]:
    """A stored v1 `game.score_corrected` of `game_id` at seq 4: `points`, which v2 calls
    `amount`, and no category or referee."""
    return {
        "event_id": "00000000-0000-0000-0000-000000000007",
        "game_id": game_id,
        "seq": 4,
        "type": "game.score_corrected",
        "schema_version": 1,
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "referee-desk",
        "payload": {"player_id": "ana", "points": -3, "reason": "Shard miscounted"},
    }
