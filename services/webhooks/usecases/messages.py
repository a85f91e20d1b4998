"""What an outbound webhook says: the message types and their JSON bodies, from the log's
events and the projected standings (pure).

Body: `{"type", "timestamp", "data"}` (Standard Webhooks 1.0's recommended payload shape), thin
(the standings are a summary: rank and totals per player, well under the spec's 20 kB advice).
Sources: Standard Webhooks 1.0 (payload structure); research tournaments-and-integrations.md Q4.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from contracts.common import EventVoided, GameEnded, GameStartedBase, ScoreCorrected
from contracts.envelope import Envelope
from domain.standings_shapes import Standings, player_totals

GAME_STARTED = "game.started"
STANDINGS_CHANGED = "standings.changed"
GAME_ENDED = "game.ended"
EVENT_VOIDED = "event.voided"
SCORE_CORRECTED = "score.corrected"
TEST = "webhook.test"
TYPES: tuple[str, ...] = (
    GAME_STARTED,
    STANDINGS_CHANGED,
    GAME_ENDED,
    EVENT_VOIDED,
    SCORE_CORRECTED,
)
"""The message types an endpoint may subscribe to (`webhook.test` goes to anyone asked)."""


def body(kind: str, timestamp: datetime, data: dict[str, Any]) -> str:
    """The JSON body of a message of `kind` (compact, keys in insertion order)."""
    return json.dumps(
        {"type": kind, "timestamp": _iso(timestamp), "data": data},
        separators=(",", ":"),
        ensure_ascii=False,
    )


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def standings_summary(standings: Standings) -> dict[str, Any]:
    """`{"seq", "status", "winner", "players": [{"player_id", "name", "rank", "total",
    "provisional_total"}]}`: totals in the game's score unit (Fame or VP)."""
    return {
        "seq": standings.seq,
        "status": standings.status,
        "winner": standings.winner,
        "players": [player_totals(p) for p in standings.players],
    }


def message_id(endpoint_id: str, game_id: str, kind: str, seq: int) -> str:
    """The `webhook-id` of a message: derived from what it is about, so the same event is the
    same message to an endpoint however often it is derived (`msg_` + 32 hex)."""
    digest = hashlib.sha256(f"{endpoint_id}\n{game_id}\n{kind}\n{seq}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


def event_messages(
    events: Sequence[Envelope], standings: dict[str, Any] | None
) -> list[tuple[str, int, str]]:
    """`(type, seq, body)` of every message `events` give (in log order): a game's start
    event, `game.ended`, voids and corrections; `standings` (a `standings_summary`, None:
    unknown) is attached to all but the start."""
    out: list[tuple[str, int, str]] = []
    for event in events:
        when = event.recorded_at or event.occurred_at
        base: dict[str, Any] = {
            "game_id": event.game_id,
            "seq": event.seq,
            "event_id": str(event.event_id),
            "occurred_at": _iso(event.occurred_at),
        }
        payload = event.payload
        if isinstance(payload, GameStartedBase):
            players = [
                {"player_id": p.player_id, "name": p.name, "seat": p.seat} for p in payload.players
            ]
            game = event.type.split(".", 1)[0]
            out.append(
                (
                    GAME_STARTED,
                    event.seq,
                    body(GAME_STARTED, when, {**base, "game": game, "players": players}),
                )
            )
            continue
        extra: dict[str, Any] | None = None
        kind = ""
        if isinstance(payload, GameEnded):
            kind, extra = GAME_ENDED, {"reason": payload.reason}
        elif isinstance(payload, EventVoided):
            kind = EVENT_VOIDED
            extra = {
                "voided_event_id": str(payload.voided_event_id),
                "reason": payload.reason,
                "referee": payload.referee,
                "reopens_game": payload.reopens_game,
            }
        elif isinstance(payload, ScoreCorrected):
            kind = SCORE_CORRECTED
            extra = {
                "player_id": payload.player_id,
                "amount": payload.amount,
                "category": payload.category,
                "reason": payload.reason,
                "referee": payload.referee,
            }
        if extra is not None:
            out.append(
                (kind, event.seq, body(kind, when, {**base, **extra, "standings": standings}))
            )
    return out


def standings_message(game_id: str, standings: dict[str, Any], now: datetime) -> str:
    """The body of a `standings.changed` of `game_id` (a `standings_summary`)."""
    return body(STANDINGS_CHANGED, now, {"game_id": game_id, "standings": standings})


def test_message(now: datetime) -> str:
    """The body of a `webhook.test`."""
    return body(TEST, now, {"message": "a test event from scoreledger"})
