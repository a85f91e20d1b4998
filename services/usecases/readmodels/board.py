"""The games list of the scoreboard: each game with its players, leader and score, turn or
round, and a status that tells a live game from an abandoned one (`stale`).

`games_board(reads, now, stale_after_s, page, per_page)` reads one page of `ReadModels.games_page()`
(live games first) and, for those games only, the stored standings and the last events of the
log. The turn is the latest `game.turn_started` among the last `TURN_WINDOW` events (None when
that window holds none: the start of the game, or an unusually long turn).
Source: docs/integrating/http.md ("games list with players, leader and score, turn or round, status including
stale, paged").
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from contracts.common import TurnStarted
from services.usecases.readmodels.reads import Pending, ReadModels

TURN_WINDOW = 200
"""Events read from the end of a log to find the current turn."""


async def games_board(
    reads: ReadModels, now: datetime, stale_after_s: float, page: int, per_page: int
) -> dict[str, Any]:
    """One page of the games list.

    Returns:
        `{"page", "per_page", "total", "pages", "stale_after_s", "games": [{game_id, game,
        status: in_progress|final|pending|stale, seq, version, updated_at, last_event_at, turn,
        score_unit, players: [{player_id, name, seat, rank, total}], leader: [player_id]}]}`,
        players in rank order; `last_event_at` is when the last event was stored (its
        `recorded_at`, ISO 8601), the clock `stale` is measured on.
    """
    chosen, total = await reads.games_page(page, per_page)
    pages = max(1, -(-total // per_page))
    rows = []
    for summary in chosen:
        row: dict[str, Any] = summary.model_dump(mode="json")
        row.update(turn=None, players=[], leader=[], score_unit=None, last_event_at=None)
        try:
            body: bytes | None = await reads.standings_body(summary.game_id)
        except Pending:
            body = None
        if body:
            standings = json.loads(body)
            row["score_unit"] = standings.get("score_unit")
            row["players"] = [
                {k: p.get(k) for k in ("player_id", "name", "seat", "rank", "total")}
                for p in standings.get("players", [])
            ]
            row["leader"] = [p["player_id"] for p in row["players"] if p["rank"] == 1]
        if summary.version:
            tail = await reads.tail(summary.game_id, TURN_WINDOW)
            last = tail[-1].recorded_at or tail[-1].occurred_at  # arrival, not table time
            row["last_event_at"] = last.isoformat()
            turns = [e.payload.turn for e in tail if isinstance(e.payload, TurnStarted)]
            row["turn"] = turns[-1] if turns else None
            idle = (now - last).total_seconds()
            if summary.status == "in_progress" and idle > stale_after_s:
                row["status"] = "stale"
        rows.append(row)
    return {
        "page": page,
        "per_page": per_page,
        "total": total,
        "pages": pages,
        "stale_after_s": stale_after_s,
        "games": rows,
    }
