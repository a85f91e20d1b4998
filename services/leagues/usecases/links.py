"""The leagues a tournament belongs to, for its pages: read from the `LeagueIndex` kept when a
league adds a tournament (never a scan of every league). Rule source:
docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from services.leagues.ports.index import LeagueIndex

TitleOf = Callable[[str], Awaitable[str | None]]
"""A league's title by its id (None: the league has no stream)."""


async def leagues_of(
    index: LeagueIndex, tournament_id: str, title_of: TitleOf
) -> list[tuple[str, str]]:
    """Each league holding `tournament_id` as `(league id, title)`, by id (the title from the
    league's first event); an indexed league with no stream is left out."""
    out = []
    for league_id in await index.leagues(tournament_id):
        title = await title_of(league_id)
        if title is not None:
            out.append((league_id, title))
    return out
