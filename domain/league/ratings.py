"""A league's multiplayer rating, replayed game by game.

Every game the league holds is rated in order: the tables of each added tournament (round,
then table) and each single game, additions in the order first added. A `RatingModel` (a
multiplayer Bayesian model such as Weng-Lin / Plackett-Luce: each player a (mu, sigma)) turns
the players' ratings before a game and their places into the ratings after it; the model is
injected (`services.leagues.usecases.rating` wraps `openskill`), so this module stays pure and
the history is a function of the stream and the model alone: a replay to any seq gives the
same ratings. `ordinal` = mu - 3 sigma (the conservative estimate leaderboards sort on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from contracts.league import TournamentAdded
from contracts.tournament import ResultLine
from domain.league.fold import LeagueState


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating: mean skill `mu`, uncertainty `sigma`."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict[str, float]:
        """Rounded to 4 decimals."""
        return {
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4),
        }


class RatingModel(Protocol):
    """A multiplayer rating model."""

    def initial(self) -> Rating:
        """A new player's rating."""
        ...

    def rate(self, before: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
        """The ratings after one game of `len(before)` players, each alone on their team;
        `places` 1 = best, shared places tie."""
        ...


@dataclass(frozen=True, slots=True)
class Step:
    """One rated game: which addition, round and table (None for a single game), which game,
    and each player's rating before and after."""

    addition: str
    round: int | None
    table: int | None
    game_id: str | None
    before: dict[str, Rating]
    after: dict[str, Rating]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "addition": self.addition,
            "round": self.round,
            "table": self.table,
            "game_id": self.game_id,
            "players": {
                pid: {"before": self.before[pid].to_dict(), "after": rating.to_dict()}
                for pid, rating in self.after.items()
            },
        }


def _games(
    state: LeagueState,
) -> list[tuple[str, int | None, int | None, str | None, tuple[ResultLine, ...]]]:
    games: list[tuple[str, int | None, int | None, str | None, tuple[ResultLine, ...]]] = []
    for addition in state.additions.values():
        p = addition.payload
        if isinstance(p, TournamentAdded):
            for t in sorted(p.tables, key=lambda t: (t.round, t.table)):
                games.append((addition.key, t.round, t.table, t.game_id, t.results))
        else:
            games.append((addition.key, None, None, p.game_id, p.results))
    return games


def rating_history(state: LeagueState, model: RatingModel) -> tuple[list[Step], dict[str, Rating]]:
    """Every rated game in order and the ratings after the last (see the module doc)."""
    current: dict[str, Rating] = {}
    steps = []
    for key, round_, table, game_id, results in _games(state):
        ids = [r.player_id for r in results]
        before = [current.get(pid) or model.initial() for pid in ids]
        after = model.rate(before, [r.place for r in results])
        steps.append(
            Step(
                key,
                round_,
                table,
                game_id,
                dict(zip(ids, before, strict=True)),
                dict(zip(ids, after, strict=True)),
            )
        )
        current.update(zip(ids, after, strict=True))
    return steps, current
