"""The leagues a tournament belongs to, for its pages: read from the `LeagueIndex` kept when a
league adds a tournament (never a scan of every league). Rule source:
docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.ports.league_index import LeagueIndex

if TYPE_CHECKING:  # the league use cases import this module
    from services.usecases.leagues import Leagues


async def leagues_of(
    leagues: Leagues, index: LeagueIndex, tournament_id: str
) -> list[tuple[str, str]]:
    """Each league holding `tournament_id` as `(league id, title)`, by id (the title from the
    league's first event); an indexed league with no stream is left out."""
    from services.usecases.leagues import UnknownLeague

    out = []
    for league_id in await index.leagues(tournament_id):
        try:
            out.append((league_id, (await leagues.state(league_id, 1)).settings.title))
        except UnknownLeague:
            continue
    return out
