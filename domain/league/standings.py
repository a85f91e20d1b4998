"""League standings: each player's league points from every addition, counted all or best N.

A tournament adds each player's tournament points (its own scoring); a single game adds the
placement points of the player's place (`LeagueCreated.points_4`, 3 and 5 players scaled as in
tournaments, shared places share the average: `domain.tournament.points`). With `count="best"`
only a player's `best` highest additions count (ties between equal additions: the earlier
one). Order: league points, then additions played (more first), then player id. Every line
names the additions behind it and whether each counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from contracts.league import GameAdded, TournamentAdded
from contracts.tournament import TournamentCreated
from domain.league.fold import LeagueState
from domain.tournament.points import placement_points
from domain.tournament.standings import fixed


@dataclass(frozen=True, slots=True)
class Part:
    """One addition's points for a player: the addition's key, its seq, the points, and
    whether they count (best N)."""

    key: str
    seq: int
    points: Fraction
    counted: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (`points` as text with 2 decimals)."""
        return {
            "addition": self.key,
            "seq": self.seq,
            "points": fixed(self.points),
            "counted": self.counted,
        }


@dataclass(frozen=True, slots=True)
class LeagueLine:
    """A player's place, name, counted points and the parts behind them."""

    place: int
    player_id: str
    name: str
    points: Fraction
    played: int
    parts: tuple[Part, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "place": self.place,
            "player_id": self.player_id,
            "name": self.name,
            "points": fixed(self.points),
            "played": self.played,
            "parts": [p.to_dict() for p in self.parts],
        }


def _points_of(state: LeagueState, payload: TournamentAdded | GameAdded) -> dict[str, Fraction]:
    if isinstance(payload, TournamentAdded):
        return {p.player_id: Fraction(str(p.points)) for p in payload.points}
    scale = TournamentCreated(
        title="league", game=state.settings.game, rounds=1, points_4=state.settings.points_4
    )
    return placement_points(scale, payload.results)


def league_standings(state: LeagueState) -> list[LeagueLine]:
    """The league table of `state` (pure; see the module doc)."""
    parts: dict[str, list[Part]] = {}
    for addition in state.additions.values():
        for pid, points in _points_of(state, addition.payload).items():
            parts.setdefault(pid, []).append(Part(addition.key, addition.seq, points, True))
    best = state.settings.best if state.settings.count == "best" else None
    lines: list[tuple[Fraction, int, str, tuple[Part, ...]]] = []
    for pid, mine in parts.items():
        if best is not None:
            ranked = sorted(range(len(mine)), key=lambda i: (-mine[i].points, i))
            kept = set(ranked[:best])
            mine = [Part(p.key, p.seq, p.points, i in kept) for i, p in enumerate(mine)]
        total = sum((p.points for p in mine if p.counted), Fraction(0))
        lines.append((total, len(mine), pid, tuple(mine)))
    lines.sort(key=lambda x: (-x[0], -x[1], x[2]))
    return [
        LeagueLine(place, pid, state.names.get(pid, pid), total, played, mine)
        for place, (total, played, pid, mine) in enumerate(lines, start=1)
    ]
