"""The lean standings route (docs/decisions/0012-hot-reads-and-off-loop-replays.md): a plain `GET /games/{id}/standings` is served by the raw
ASGI `LeanRoute` ahead of FastAPI, with the same body and headers as the FastAPI route gave
(the `StandingsResponse` JSON with checkpoint and updated_at; content-length, content-type),
the same RFC 9457 problems (404, 503 with Retry-After) and metrics under the same route
template; any other request of the path (a query string, HEAD, POST, a trailing slash) falls
through to FastAPI and gets what it got before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from domain.fold import fold
from domain.standings import standings
from services.bootstrap import Roles, build_app
from services.doors.asgi.lean import LeanRoute
from services.platform.settings import ServiceSettings
from tests.doors.problem_support import assert_problem
from tests.query.conftest import Seeder, load
from tests.query.oracle import standings_view

pytestmark = pytest.mark.redis

TRICKERION = load("trickerion-demo.jsonl")
PENUMBRA = load("penumbra-demo.jsonl")
UPDATED = "2026-11-30T10:00:00+00:00"


class RouteSpy:
    """ASGI wrapper recording which route object served each request."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.routes: list[Any] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
        if scope["type"] == "http":
            self.routes.append(scope.get("route"))


@pytest.fixture
async def spied(clean_redis_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, RouteSpy]]:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=16, max_lag_events=3)
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    spy = RouteSpy(app)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=spy)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as client:
            yield client, spy


async def test_plain_get_is_served_lean_with_the_same_body_and_headers(
    spied: tuple[httpx.AsyncClient, RouteSpy], seeder: Seeder
) -> None:
    api, spy = spied
    await seeder.seed(TRICKERION, updated_at=UPDATED)
    response = await api.get("/games/tr-demo-1/standings")
    assert isinstance(spy.routes[-1], LeanRoute)
    assert spy.routes[-1].path == "/games/{game_id}/standings"
    expected = standings_view(
        standings(fold(TRICKERION)), "projection", "1700000000000-5", UPDATED
    ).model_dump(mode="json")
    assert response.status_code == 200
    assert response.json() == expected
    assert list(response.json())[-2:] == ["checkpoint", "updated_at"]  # appended as before
    assert sorted(response.headers.items()) == [
        ("content-length", str(len(response.content))),
        ("content-type", "application/json"),
    ]
    again = await api.get("/games/tr-demo-1/standings")  # the cached render
    assert again.content == response.content


async def test_a_new_projection_is_rendered_anew(
    spied: tuple[httpx.AsyncClient, RouteSpy], seeder: Seeder
) -> None:
    api, _ = spied
    await seeder.append(PENUMBRA)
    await seeder.project(PENUMBRA[:4])
    assert (await api.get("/games/pe-demo-1/standings")).json()["seq"] == 4
    await seeder.project(PENUMBRA, updated_at=UPDATED)
    body = (await api.get("/games/pe-demo-1/standings")).json()
    assert (body["seq"], body["updated_at"]) == (8, UPDATED)


async def test_unknown_and_pending_games_are_the_same_problems(
    spied: tuple[httpx.AsyncClient, RouteSpy], seeder: Seeder
) -> None:
    api, spy = spied
    missing = await api.get("/games/nope/standings")
    assert isinstance(spy.routes[-1], LeanRoute)
    assert_problem(missing, 404, "Not Found", "read.game_not_found", "game_id", "no game 'nope'")
    await seeder.append(PENUMBRA)
    pending = await api.get("/games/pe-demo-1/standings")
    assert pending.status_code == 503
    assert pending.headers["retry-after"] == "1"
    assert pending.json()["rule"] == "read.projection_pending"


async def test_other_requests_of_the_path_fall_through_to_fastapi(
    spied: tuple[httpx.AsyncClient, RouteSpy], seeder: Seeder
) -> None:
    api, spy = spied
    await seeder.seed(TRICKERION)
    replayed = await api.get("/games/tr-demo-1/standings?at_seq=5")
    assert not isinstance(spy.routes[-1], LeanRoute)
    assert (replayed.json()["source"], replayed.json()["seq"]) == ("replay", 5)
    bad = await api.get("/games/tr-demo-1/standings?at_seq=0")
    assert (bad.status_code, bad.json()["rule"]) == (422, "request.invalid")
    for method in ("HEAD", "POST"):
        refused = await api.request(method, "/games/tr-demo-1/standings")
        assert (refused.status_code, refused.headers["allow"]) == (405, "GET")
    slash = await api.get("/games/tr-demo-1/standings/")
    assert slash.status_code == 307


async def test_lean_requests_are_counted_under_the_route_template(
    spied: tuple[httpx.AsyncClient, RouteSpy], seeder: Seeder
) -> None:
    api, _ = spied
    await seeder.seed(TRICKERION)
    for _ in range(3):
        await api.get("/games/tr-demo-1/standings")
    await api.get("/games/nope/standings")
    text = (await api.get("/metrics")).text
    assert (
        'scoreledger_query_requests_total{route="/games/{game_id}/standings",status="200"} 3.0'
        in text
    )
    assert (
        'scoreledger_query_requests_total{route="/games/{game_id}/standings",status="404"} 1.0'
        in text
    )
