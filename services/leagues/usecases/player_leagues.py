"""One player across leagues: the id a club keeps for a player in each of its leagues (a
tournament's registrant id, a single game's player id), read from every league that names it.
A league keeps its own record of the player (`domain.league.player`); this gathers them, so a
player page shows every league, its tournaments, games and rating. Leagues are read from the
list of league streams (the most recently created first, at most `limit`), never guessed.
Rule source: docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

import contextlib

from domain.league.player import PlayerRecord
from services.leagues.usecases.stream import Leagues, UnknownLeague

MAX_LEAGUES = 1000
"""At most this many leagues are read for one player."""


async def player_across(
    leagues: Leagues, player_id: str, limit: int = MAX_LEAGUES
) -> list[PlayerRecord]:
    """The player's record in each league naming `player_id`, by league id; [] for none."""
    found = []
    for league_id in sorted(await leagues.log.streams(limit)):
        with contextlib.suppress(UnknownLeague):  # listed, then gone (a test's flush)
            record = await leagues.player(league_id, player_id)
            if record is not None:
                found.append(record)
    return found
