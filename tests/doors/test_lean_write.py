"""The lean write (services/doors/ingest/http.py, served by the front door of
services/doors/query/front.py): a plain `POST /games/{id}/events` skips FastAPI's middleware
and request handling, and answers every write exactly as the FastAPI route does (the same
statuses, bytes, headers and metrics), its refusals, duplicates and body limits included;
a `?dry_run=` write still takes the FastAPI route. Source: docs/profiles/hot-path-profiles.md."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.bootstrap import Roles, assemble, build
from services.doors.query.front import FrontedFastAPI
from services.platform.settings import ServiceSettings
from tests.query.conftest import crossing
from tests.redis_fixture import flush_all

pytestmark = pytest.mark.redis

DATA = Path(__file__).resolve().parents[1] / "cli" / "data"
LINES = (DATA / "trickerion-demo.jsonl").read_text(encoding="utf-8").splitlines()
TOKEN = "a-chosen-write-token-of-32-characters-or-more"
LIMIT = 64 * 1024
ROUTE = "/games/{game_id}/events"


def batch(lines: list[str]) -> bytes:
    return ("[" + ",".join(lines) + "]").encode()


async def chunks(total: int) -> AsyncIterator[bytes]:
    for _ in range(total // 4096):
        yield b" " * 4096


async def scenario(http: httpx.AsyncClient) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    """The writes: each answer's status, sorted headers and bytes."""
    auth = {"authorization": f"Bearer {TOKEN}"}
    url = "/games/tr-demo-1/events"
    requests: list[tuple[Any, dict[str, str]]] = [
        (batch(LINES[:3]), auth),  # creates the game with the chosen token
        (batch(LINES[:3]), auth),  # an exact retry: duplicates
        (LINES[3].encode(), {}),  # no token: 401
        (LINES[3].encode(), {"authorization": "Basic " + TOKEN}),  # not a bearer: 401
        (LINES[3].encode(), {"authorization": "Bearer " + "x" * 40}),  # another token: 403
        (b"[{", auth),  # not JSON: 422
        (LINES[3].replace('"seq":4', '"seq":"four"').encode(), auth),  # schema: 422
        (LINES[4].encode(), auth),  # seq 5 after version 3: 409
        (b"[" + b" " * LIMIT + b"]", auth),  # declared too large: 413
        (chunks(LIMIT + 8192), auth),  # chunked, too large once read: 413
        (LINES[3].encode(), {"authorization": f"bearer   {TOKEN} "}),  # scheme any case: 201
        (batch(LINES[4:9]), {**auth, "x-creator-key": "ignored"}),  # one batch more: 201
    ]
    out = []
    for body, headers in requests:
        reply = await http.post(url, content=body, headers=headers)
        out.append((reply.status_code, sorted(reply.headers.items()), reply.content))
    return out


def counted(text: str) -> list[str]:
    """The /metrics lines counting the write route's requests (and those refused before
    routing, `unmatched`)."""
    pattern = re.compile(
        r'^scoreledger_query_requests_total\{route="(/games/\{game_id\}/events|unmatched)"'
    )
    return sorted(line for line in text.splitlines() if pattern.match(line))


async def run(url: str, front: bool, crossed: list[str]) -> tuple[list[Any], list[str]]:
    """The scenario on a fresh app and a flushed Redis, with or without its front door."""
    flush_all(url)
    settings = ServiceSettings(redis_url=url, shards=16, max_body_bytes=LIMIT)
    built = assemble(build(settings), Roles(inbox=False, projector=False))
    app = built.app
    assert isinstance(app, FrontedFastAPI)
    assert app.front is not None
    if not front:
        app.front = None
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://ingest") as http:
            crossed.clear()
            answers = await scenario(http)
            writes = [p for p in crossed if p.endswith("/events")]
            metrics = counted((await http.get("/metrics")).text)
    return answers, metrics + writes


@pytest.fixture
def crossed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the requests that crossed the app's middleware."""
    return crossing(monkeypatch)


async def test_the_lean_write_answers_as_the_fastapi_route(
    clean_redis_url: str, crossed: list[str]
) -> None:
    lean, lean_seen = await run(clean_redis_url, True, crossed)
    plain, plain_seen = await run(clean_redis_url, False, crossed)
    assert [a[0] for a in lean] == [201, 201, 401, 401, 403, 422, 422, 409, 413, 413, 201, 201]
    assert lean == plain
    created = json.loads(lean[0][2])
    assert created["write_token"] == TOKEN
    assert [e["duplicate"] for e in json.loads(lean[1][2])["appended"]] == [True] * 3
    assert json.loads(lean[6][2])["rule"] == "schema.field"
    # the same metrics; only the FastAPI run's writes crossed the middleware
    lean_metrics = [line for line in lean_seen if line.startswith("scoreledger")]
    plain_metrics = [line for line in plain_seen if line.startswith("scoreledger")]
    assert lean_metrics == plain_metrics
    assert any('"unmatched",status="413"' in line for line in lean_metrics)
    assert any('events",status="413"' in line for line in lean_metrics)
    # the declared 413 is refused before routing: FastAPI's stack still answers it
    assert [p for p in lean_seen if p.startswith("/games")] == ["/games/tr-demo-1/events"]
    assert len([p for p in plain_seen if p.startswith("/games")]) == 12


async def test_a_dry_run_takes_the_fastapi_route(clean_redis_url: str, crossed: list[str]) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=16)
    app = assemble(build(settings), Roles(inbox=False, projector=False)).app
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ingest") as http:
            crossed.clear()
            auth = {"authorization": f"Bearer {TOKEN}"}
            url = "/games/tr-demo-1/events"
            tried = await http.post(url + "?dry_run=true", content=batch(LINES[:2]), headers=auth)
            assert tried.status_code == 200
            assert crossed == ["/games/tr-demo-1/events"]
            written = await http.post(url, content=batch(LINES[:2]), headers=auth)
            assert written.status_code == 201
            assert crossed == ["/games/tr-demo-1/events"]
            assert tried.json()["appended"] == written.json()["appended"]


async def test_an_ingest_only_app_has_the_lean_write(clean_redis_url: str) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=16)
    app = assemble(build(settings), Roles(query=False, inbox=False, projector=False)).app
    assert isinstance(app, FrontedFastAPI)
    assert app.front is not None
    scope = {"type": "http", "method": "POST", "path": "/games/g1/events", "query_string": b""}
    taken = app.front.match(scope)
    assert taken is not None
    assert taken[0].path == ROUTE
    assert app.front.match({**scope, "method": "GET"}) is None
    assert app.front.match({**scope, "query_string": b"dry_run=true"}) is None
