"""The tournament doors: HTTP writes, reads, live SSE and pages; each calls the use cases.

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
    from services.platform.settings import QuerySettings
    from services.tournaments.usecases.desk import TournamentDesk
    from services.tournaments.usecases.stream import Tournaments


class TournamentCases(Protocol):
    """The use cases the tournament doors call (the composition root's `UseCases`)."""

    @property
    def tournaments(self) -> Tournaments: ...

    @property
    def desk(self) -> TournamentDesk: ...


def mount_query(app: FastAPI, cases: TournamentCases, settings: QuerySettings) -> None:
    """The reads (query role): the list before `/tournaments/{id}`, then the tournament."""
    from services.tournaments.doors.query import tournament_read_router
    from services.tournaments.doors.web import tournament_list_router

    app.include_router(tournament_list_router(cases.tournaments))
    app.include_router(tournament_read_router(cases.tournaments))


def mount_ingest(app: FastAPI, cases: TournamentCases, settings: QuerySettings) -> None:
    """The writes (ingest role), through the organiser's desk."""
    from services.tournaments.doors.ingest import tournament_write_router
    from services.tournaments.doors.ingest_club import tournament_club_router

    app.include_router(tournament_write_router(cases.desk))
    app.include_router(tournament_club_router(cases.desk, settings))


def mount_pages(
    app: FastAPI,
    cases: TournamentCases,
    settings: QuerySettings,
    streams: ClientHolds,
    hub: ChangeHub,
) -> None:
    """The live SSE, the pages and their static files (query role; the games' push `hub` is not
    theirs: the tournament SSE has its own watch)."""
    from services.tournaments.doors.push import TournamentWatch, tournament_push_router
    from services.tournaments.doors.web import tournament_static_router, tournament_web_router

    watch = TournamentWatch(cases.tournaments, per_client=settings.watch_per_client)
    app.include_router(tournament_push_router(watch, streams))
    app.include_router(tournament_web_router(cases.tournaments, settings))
    app.include_router(tournament_static_router())
