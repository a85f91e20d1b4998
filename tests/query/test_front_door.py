"""The front door (docs/decisions/0012-hot-reads-and-off-loop-replays.md): a plain `GET /games/{id}/standings` is answered before FastAPI's
middleware, with the bytes, headers and problems the same app gives without its front door;
the projector's stored view is passed through, and without a view of the stored seq (an older
projector) the standings are rendered to the same bytes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from services.adapters.redis.errors import translated
from services.bootstrap import Roles, assemble, build
from services.doors.query.front import FrontDoor, FrontedFastAPI
from services.platform.settings import ServiceSettings
from services.usecases.readmodels.reads import ReadModels
from tests.query.conftest import Seeder, crossing, load

pytestmark = pytest.mark.redis

TRICKERION = load("trickerion-demo.jsonl")
PENUMBRA = load("penumbra-demo.jsonl")


@dataclass
class Door:
    """The query app, a client on it, and a count of requests that crossed its middleware."""

    app: FrontedFastAPI
    reads: ReadModels
    http: httpx.AsyncClient
    crossed: list[str]

    async def both(self, path: str) -> tuple[httpx.Response, httpx.Response]:
        """`GET path` through the front door, then through FastAPI (the door taken away)."""
        self.crossed.clear()
        front = await self.http.get(path)
        assert self.crossed == [], "the front door's request crossed the middleware"
        door, self.app.front = self.app.front, None
        try:
            plain = await self.http.get(path)
        finally:
            self.app.front = door
        assert self.crossed == [path]
        return front, plain


@pytest.fixture
async def door(clean_redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Door]:
    crossed = crossing(monkeypatch)
    settings = ServiceSettings(redis_url=clean_redis_url, shards=16, max_lag_events=3)
    built = assemble(build(settings), Roles(ingest=False, inbox=False, projector=False))
    app = built.app
    assert isinstance(app, FrontedFastAPI)
    assert isinstance(app.front, FrontDoor)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as http:
            yield Door(app, built.service.cases.reads, http, crossed)


def same(front: httpx.Response, plain: httpx.Response) -> None:
    assert (front.status_code, front.content) == (plain.status_code, plain.content)
    assert sorted(front.headers.items()) == sorted(plain.headers.items())


async def test_the_stored_view_is_passed_through_as_fastapi_served_it(
    door: Door, seeder: Seeder
) -> None:
    await seeder.seed(TRICKERION, view=True)
    front, plain = await door.both("/games/tr-demo-1/standings")
    same(front, plain)
    assert front.status_code == 200
    assert sorted(front.headers) == ["content-length", "content-type"]
    assert front.headers["content-type"] == "application/json"
    assert list(front.json())[-2:] == ["checkpoint", "updated_at"]


async def test_without_a_view_of_the_stored_seq_the_standings_are_rendered_alike(
    door: Door, seeder: Seeder
) -> None:
    await seeder.seed(PENUMBRA, view=True)
    with_view = (await door.http.get("/games/pe-demo-1/standings")).content
    await seeder.project(PENUMBRA)  # an older projector: seq and standings, no view
    key = seeder.keys.projection("pe-demo-1")
    await seeder.client.hdel(key, "view", "view_seq")
    rendered = (await door.http.get("/games/pe-demo-1/standings")).content
    assert rendered == with_view
    # An older projector moving the game on leaves the newer one's view of an earlier seq:
    # it is not served, the stored standings are.
    await seeder.project(PENUMBRA[:5], view=True)
    await seeder.project(PENUMBRA)
    await seeder.client.hset(key, "view_seq", 5)
    assert (await door.http.get("/games/pe-demo-1/standings")).content == with_view


async def test_not_found_and_pending_are_the_same_problems(door: Door, seeder: Seeder) -> None:
    missing, plain = await door.both("/games/nope/standings")
    same(missing, plain)
    assert (missing.status_code, missing.json()["rule"]) == (404, "read.game_not_found")
    await seeder.append(PENUMBRA)
    pending, plain = await door.both("/games/pe-demo-1/standings")
    same(pending, plain)
    assert (pending.status_code, pending.headers["retry-after"]) == (503, "1")
    assert pending.json()["rule"] == "read.projection_pending"


async def test_a_storage_fault_and_a_bug_are_the_same_problems(
    door: Door, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def down(game_id: str) -> None:
        raise translated(RedisConnectionError("Error 111 connecting to 10.0.0.9:6379"))

    monkeypatch.setattr(door.reads.projections, "standings", down)
    fault, plain = await door.both("/games/g1/standings")
    same(fault, plain)
    assert (fault.status_code, fault.headers["retry-after"]) == (503, "1")
    assert fault.json()["rule"] == "service.storage_unavailable"
    assert "10.0.0.9" not in fault.text

    async def bug(game_id: str) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(door.reads.projections, "standings", bug)
    failed, plain = await door.both("/games/g1/standings")
    same(failed, plain)
    assert (failed.status_code, failed.json()["rule"]) == (500, "server.internal")


async def test_front_door_requests_are_counted_under_the_route_template(
    door: Door, seeder: Seeder
) -> None:
    await seeder.seed(TRICKERION, view=True)
    await door.http.get("/games/tr-demo-1/standings")
    await door.http.get("/games/nope/standings")
    text = (await door.http.get("/metrics")).text
    route = 'route="/games/{game_id}/standings"'
    assert f'scoreledger_query_requests_total{{{route},status="200"}} 1.0' in text
    assert f'scoreledger_query_requests_total{{{route},status="404"}} 1.0' in text
    assert f"scoreledger_query_request_seconds_count{{{route}}} 2.0" in text


def scope(path: str, **extra: Any) -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": path, "query_string": b"", **extra}


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/games/g1/standings", {"method": "HEAD"}),
        ("/games/g1/standings", {"method": "POST"}),
        ("/games/g1/standings", {"query_string": b"at_seq=3"}),
        ("/games/g1/standings", {"headers": [(b"content-length", b"10")]}),
        ("/games/g1/standings", {"headers": [(b"transfer-encoding", b"chunked")]}),
        ("/games/g1/standings", {"root_path": "/api"}),
        ("/games/g1/standings/", {}),
        ("/games//standings", {}),
        ("/games/a/b/standings", {}),
        ("/games/live", {}),
        ("/games/g1/events", {}),
        ("/games/g1/standings", {"type": "websocket"}),
    ],
)
async def test_every_other_request_is_left_to_fastapi(
    door: Door, path: str, extra: dict[str, Any]
) -> None:
    assert door.app.front is not None
    assert door.app.front.match(scope(path, **extra)) is None


async def test_the_door_takes_the_plain_get_and_any_live_get(door: Door) -> None:
    front = door.app.front
    assert front is not None
    taken = front.match(scope("/games/g-1/standings", headers=[(b"host", b"q")]))
    assert taken is not None
    assert taken[1] == {"game_id": "g-1"}
    assert taken[0].path == "/games/{game_id}/standings"
    live = front.match(scope("/games/g-1/live", query_string=b"x=1"))
    assert live is not None
    assert live[0].path == "/games/{game_id}/live"


async def test_the_fallthrough_still_answers_as_before(door: Door, seeder: Seeder) -> None:
    await seeder.seed(TRICKERION, view=True)
    door.crossed.clear()
    replayed = await door.http.get("/games/tr-demo-1/standings?at_seq=5")
    assert (replayed.json()["source"], replayed.json()["seq"]) == ("replay", 5)
    head = await door.http.head("/games/tr-demo-1/standings")
    assert head.status_code == 405
    declared = await door.http.get("/games/tr-demo-1/standings", headers={"content-length": "0"})
    assert declared.status_code == 200
    assert door.crossed == ["/games/tr-demo-1/standings"] * 3


async def test_the_live_stream_of_an_unknown_game_is_a_404_problem_through_either_door(
    door: Door,
) -> None:
    """Every route of a game answers 404 for a game with no events, the SSE stream too (it
    answered 200 and pinged forever); the same problem through the front door and FastAPI."""
    async with asyncio.timeout(10):  # a stream that started would never end
        front, plain = await door.both("/games/no-such-game/live")
    same(front, plain)
    assert front.status_code == 404
    assert front.headers["content-type"] == "application/problem+json"
    assert (front.json()["rule"], front.json()["field"]) == ("read.game_not_found", "game_id")
