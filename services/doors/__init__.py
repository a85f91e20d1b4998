"""The doors: every way in over the network (HTTP ingest and the Redis inbox, queries, push,
pages) and the workers that drive the use cases (projector, archiver, webhook sender); `asgi/`
holds the HTTP pieces they share. A door calls use cases and ports, never an adapter, the
composition root or another door. The command line (`services/cli/`) stands above them: it
starts them through `services/bootstrap/`.

The games' HTTP doors mount themselves as a feature's do (`services/tournaments/doors/`): the
HTTP assembly (`services.bootstrap.http`) calls `mount_query`, `mount_ingest` and `mount_pages`
with the process's use cases, first of the features; each loads its door modules only then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fastapi import FastAPI

    from services.doors.push.holds import ClientHolds
    from services.doors.push.hub import ChangeHub
    from services.platform.settings import QuerySettings
    from services.usecases.readmodels.reads import ReadModels
    from services.usecases.record import AfterGameWrite, Record


class GameCases(Protocol):
    """The use cases the games' doors call (the composition root's `UseCases`)."""

    @property
    def reads(self) -> ReadModels: ...

    @property
    def record(self) -> Record: ...

    @property
    def tables(self) -> AfterGameWrite: ...


def mount_query(app: FastAPI, cases: GameCases, settings: QuerySettings) -> None:
    """The games' reads (query role)."""
    from services.doors.query.routes import query_router

    app.include_router(query_router(cases.reads))


def mount_ingest(app: FastAPI, cases: GameCases, settings: QuerySettings) -> None:
    """The games' writes (ingest role), following tournament tables' games."""
    from services.doors.ingest.http import ingest_router

    app.include_router(ingest_router(cases.record, cases.tables))


def mount_pages(
    app: FastAPI, cases: GameCases, settings: QuerySettings, streams: ClientHolds, hub: ChangeHub
) -> None:
    """Live push, then the writes forwarded to ingest (a split deployment: `ingest_url` set),
    then the web scoreboard: after push, so `/games/live` is not taken for a game id."""
    from services.doors.push.routes import push_router
    from services.doors.web.routes import web_router

    app.include_router(push_router(hub, cases.reads, streams))
    if settings.ingest_url is not None:
        from services.doors.web.forward import forward_router

        app.include_router(forward_router(settings))
    app.include_router(web_router(cases.reads, settings))
