"""A simulated league (`scoreledger league simulate`): several simulated tournaments
(`services.tournaments.simulator`, seeds `seed`, `seed + 1`, ...) added to one league on
in-memory logs, then its standings and its openskill ratings, replayed game by game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from contracts.league import LeagueCreated
from services.tournaments.simulator import run_tournament
from services.usecases.authorize import WriteProof

if TYPE_CHECKING:
    from services.leagues.usecases.stream import Leagues
    from services.tournaments.usecases.stream import Tournaments

TOKEN = "simulated-league-organiser-token-0123456789"


class Builders(Protocol):
    """What the simulated league runs on, built by the composition root (in memory)."""

    def memory_tournaments(self) -> Tournaments:
        """A tournaments use case on a fresh in-memory log."""

    def memory_leagues(self, tournaments: Tournaments) -> Leagues:
        """A leagues use case on fresh in-memory logs, reading `tournaments`."""


async def run_league(
    tournaments: int,
    players: int,
    rounds: int,
    seed: int,
    game: str,
    best: int | None,
    build: Builders,
) -> dict[str, Any]:
    """The `league simulate --json` document: `standings` (league table lines), `ratings`
    (best ordinal first) and `games_rated`."""
    cases = build.memory_tournaments()
    leagues = build.memory_leagues(cases)
    settings = LeagueCreated(
        title="simulated league",
        game=game,
        count="best" if best else "all",
        best=best,
    )
    _, _ = await leagues.create("sim-league", settings, leagues.may_create(WriteProof(TOKEN)))
    credential = await leagues.authorize("sim-league", TOKEN)
    for k in range(tournaments):
        await run_tournament(players, rounds, seed + k, game, cases=cases)
        await leagues.add_tournament("sim-league", credential, f"sim-{seed + k}")
    lines = await leagues.standings("sim-league")
    steps, ratings = await leagues.ratings("sim-league")
    board = sorted(ratings.items(), key=lambda kv: (-kv[1].ordinal, kv[0]))
    return {
        "tournaments": tournaments,
        "games_rated": len(steps),
        "standings": [line.to_dict() for line in lines],
        "ratings": [{"player_id": pid, **r.to_dict()} for pid, r in board],
    }
