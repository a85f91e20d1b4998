"""The league doors: HTTP writes, reads, the league page and the player page.

They mount themselves: the HTTP assembly (`services.bootstrap.http`) calls `mount_query`,
`mount_ingest` and `mount_pages` with the process's use cases, in the app's route order; each
loads its door modules only then (the web stack loads in the processes that serve it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fastapi import FastAPI

    from services.doors.push.holds import ClientHolds
    from services.doors.push.hub import ChangeHub
    from services.leagues.usecases.stream import Leagues
    from services.platform.settings import QuerySettings


class LeagueCases(Protocol):
    """The use cases the league doors call (the composition root's `UseCases`)."""

    @property
    def leagues(self) -> Leagues: ...


def mount_query(app: FastAPI, cases: LeagueCases, settings: QuerySettings) -> None:
    """The reads (query role): the league, and a tournament's leagues."""
    from services.leagues.doors.query import league_read_router, tournament_leagues_router

    app.include_router(league_read_router(cases.leagues))
    app.include_router(tournament_leagues_router(cases.leagues))


def mount_ingest(app: FastAPI, cases: LeagueCases, settings: QuerySettings) -> None:
    """The writes (ingest role)."""
    from services.leagues.doors.ingest import league_write_router

    app.include_router(league_write_router(cases.leagues))


def mount_pages(
    app: FastAPI,
    cases: LeagueCases,
    settings: QuerySettings,
    streams: ClientHolds,
    hub: ChangeHub,
) -> None:
    """The league page and the player page (query role; no live stream: `streams` and the
    games' push `hub` go unused)."""
    from services.leagues.doors.web import league_web_router
    from services.leagues.doors.web_players import player_router

    app.include_router(league_web_router(cases.leagues))
    app.include_router(player_router(cases.leagues))
