"""One player's record in a league: the id a league keeps for a player across the tournaments
and single games it adds (a tournament's registrant id, a game's player id).

`player_record(state, player_id, steps)` gathers, from a folded league and its rating history
(`domain.league.ratings.rating_history`), the player's tournaments (title, place in the
tournament's standings as added, of how many, tournament points), every game they played (a
tournament's table or a single game: place, of how many) and their rating after each rated
game, in the league's rating order. The name is the league's (a forgotten player's pseudonym:
the league's names are read through the kept-names log). Rule source:
docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contracts.league import TournamentAdded
from contracts.tournament import ResultLine
from domain.league.fold import LeagueState
from domain.league.ratings import Rating, Step
from domain.values import fields_dict


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player's league record: JSON-ready lists of tournaments, games and rating steps, and
    the rating after the last rated game (None: never rated)."""

    league_id: str
    league_title: str
    player_id: str
    name: str
    tournaments: list[dict[str, Any]]
    games: list[dict[str, Any]]
    rating: list[dict[str, Any]]
    current: Rating | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ids, name, the three lists and `current` (mu, sigma, ordinal)."""
        return fields_dict(self, current=None if self.current is None else self.current.to_dict())


def _tournaments(state: LeagueState, player_id: str) -> list[dict[str, Any]]:
    """Each added tournament registering the player: its standings' order is `points`'."""
    out = []
    for a in state.additions.values():
        p = a.payload
        if not isinstance(p, TournamentAdded) or all(x.player_id != player_id for x in p.players):
            continue
        ids = [x.player_id for x in p.points]
        place = ids.index(player_id) + 1 if player_id in ids else None
        points = next((x.points for x in p.points if x.player_id == player_id), None)
        out.append(
            {
                "tournament_id": p.tournament_id,
                "title": p.title,
                "place": place,
                "of": len(ids),
                "points": points,
            }
        )
    return out


def _games(state: LeagueState, player_id: str) -> list[dict[str, Any]]:
    """Every game seating the player, in the rating order (tables by round, then table)."""
    out = []
    for a in state.additions.values():
        p = a.payload
        found: list[tuple[str | None, int | None, int | None, str | None, tuple[ResultLine, ...]]]
        if isinstance(p, TournamentAdded):
            found = [
                (a.source_id, t.round, t.table, t.game_id, t.results)
                for t in sorted(p.tables, key=lambda t: (t.round, t.table))
            ]
        else:
            found = [(None, None, None, p.game_id, p.results)]
        for tournament, round_, table, game_id, results in found:
            place = next((r.place for r in results if r.player_id == player_id), None)
            if place is None:
                continue
            out.append(
                {
                    "tournament_id": tournament,
                    "round": round_,
                    "table": table,
                    "game_id": game_id,
                    "place": place,
                    "of": len(results),
                }
            )
    return out


def player_record(state: LeagueState, player_id: str, steps: list[Step]) -> PlayerRecord | None:
    """The record of `player_id` in the league `state` (see the module doc); `steps` its
    rating history. None when the league names no such player."""
    if player_id not in state.names:
        return None
    rating = [
        {
            "addition": s.addition,
            "round": s.round,
            "table": s.table,
            "game_id": s.game_id,
            "before": s.before[player_id].to_dict(),
            "after": s.after[player_id].to_dict(),
        }
        for s in steps
        if player_id in s.after
    ]
    current = next((s.after[player_id] for s in reversed(steps) if player_id in s.after), None)
    return PlayerRecord(
        state.league_id,
        state.settings.title,
        player_id,
        state.names[player_id],
        _tournaments(state, player_id),
        _games(state, player_id),
        rating,
        current,
    )
