"""Compact live frames: the standings without what a client already holds.

The first frame of a connection (and of a resume that missed changes) carries the whole
`GET /games/{id}/standings` body. Each later frame carries `compact(body)`: the same top-level
fields, but each player's `breakdown` (every category with its EN/RU labels, zeros included)
becomes `points`, `{category key: points}` for the non-zero categories only, and the
provisional part becomes `{total, points}` likewise. The page keeps the labels from the full
frame; a category missing from `points` is 0. About a tenth of the full body for Trickerion.
Source: issue 12 ("small live frames").
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

CACHE_GAMES = 10_000


def _points(categories: list[dict[str, Any]]) -> dict[str, int]:
    return {c["key"]: c["points"] for c in categories if c.get("points")}


def compact(body: dict[str, Any]) -> dict[str, Any]:
    """The compact form of a standings body (see the module docstring); pure."""
    players = []
    for p in body.get("players", []):
        provisional = p.get("provisional")
        players.append(
            {
                "player_id": p["player_id"],
                "name": p["name"],
                "seat": p.get("seat"),
                "rank": p["rank"],
                "total": p["total"],
                "points": _points(p.get("breakdown", [])),
                "provisional": {
                    "total": provisional["total"],
                    "points": _points(provisional.get("categories", [])),
                }
                if provisional
                else None,
            }
        )
    return {**{k: v for k, v in body.items() if k != "players"}, "players": players}


class CompactCache:
    """The compact JSON of each game's latest delivery, made once for all its subscribers."""

    def __init__(self, capacity: int = CACHE_GAMES) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, tuple[str, str]] = OrderedDict()

    def json(self, game_id: str, entry_id: str, body: Any) -> str:
        """`compact(body)` as JSON for the delivery `entry_id` of `game_id` (`null` body: `null`)."""
        hit = self._items.get(game_id)
        if hit is not None and hit[0] == entry_id:
            self._items.move_to_end(game_id)
            return hit[1]
        text = json.dumps(compact(body), separators=(",", ":")) if body else "null"
        self._items[game_id] = (entry_id, text)
        self._items.move_to_end(game_id)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
        return text
