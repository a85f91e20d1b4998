"""Backfill of the tournament -> leagues index (`LeagueIndex`): the index is kept at each
league addition, so a tournament a league added before the index existed is named by no entry.
`backfill_league_index` reads every league stream once and adds an entry for each tournament it
added; run at the start of a process that writes leagues (adding is idempotent, so a start
after a complete run changes nothing). Rule source: docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from contracts.league import TournamentAdded
from services.leagues.ports.index import LeagueIndex
from services.leagues.ports.log import LeagueLog

MAX_LEAGUES = 10_000
"""At most this many leagues are read, the most recently created first."""


async def backfill_league_index(
    log: LeagueLog, index: LeagueIndex, limit: int = MAX_LEAGUES
) -> int:
    """Add an index entry for every tournament each league in `log` added (at most `limit`
    leagues); the number of (tournament, league) pairs found."""
    found = 0
    for league_id in await log.streams(limit):
        held = {
            e.payload.tournament_id
            for e in await log.read(league_id)
            if isinstance(e.payload, TournamentAdded)
        }
        for tournament_id in sorted(held):
            await index.add(tournament_id, league_id)
        found += len(held)
    return found
