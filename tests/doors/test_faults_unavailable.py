"""Honest answers while Redis cannot serve: 503 `service.storage_unavailable` with `Retry-After`
(RFC 9457), never 500, on every write and read; the first request after Redis returns
succeeds; `/healthz` stays 200 and `/readyz` is 503 meanwhile. A real redis-server is stopped,
frozen (SIGSTOP: every reply times out) and started again. Source: docs/decisions/0011-faults-are-answered-not-crashed.md ("While Redis is
down ... writes and reads answer 500 (not 503 with `Retry-After`), including the first request
after Redis returns").
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from redis import exceptions as rexc

from services.adapters.redis.errors import FAULT_REPLIES, FAULTS, translated
from services.bootstrap import Roles, build_app
from services.doors.asgi.http_errors import install_problem_handlers
from services.platform.settings import ServiceSettings
from tests.doors.fault_support import seed_game, short_timeout_client
from tests.redis_fixture import RedisServer, sync_client

pytestmark = pytest.mark.redis
GAME = "tr-down-1"
READS = (
    f"/games/{GAME}/events",
    "/games",
    f"/games/{GAME}/export/events.jsonl",
    f"/games/{GAME}/timeline",
)


@pytest.fixture
def http(server: RedisServer) -> Iterator[TestClient]:
    """Ingest + query on `server`, with short timeouts and one retry so a fault shows fast."""
    with short_timeout_client(server.url, socket_timeout_s=0.5) as client:
        yield client


def _seed(http: TestClient, server: RedisServer) -> list[dict[str, object]]:
    write = seed_game(http, GAME)
    admin = sync_client(server.url)
    admin.save()  # the restart below comes back with the game
    admin.close()
    return [write]


def _answers(http: TestClient, write: list[dict[str, object]]) -> list[httpx.Response]:
    """The write, the reads and the standings (no projector here: 503 pending once Redis is
    back, so it is only asked while Redis is down)."""
    return [http.post(f"/games/{GAME}/events", json=write)] + [http.get(p) for p in READS]


def _down_answers(http: TestClient, write: list[dict[str, object]]) -> list[httpx.Response]:
    return [*_answers(http, write), http.get(f"/games/{GAME}/standings")]


def _tally(answers: list[httpx.Response]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for answer in answers:
        counts[answer.status_code] = counts.get(answer.status_code, 0) + 1
    return counts


def _assert_unavailable(answers: list[httpx.Response]) -> None:
    for answer in answers:
        assert answer.status_code == 503, (answer.request.url, answer.text)
        assert answer.headers["retry-after"] == "1"
        assert answer.headers["content-type"] == "application/problem+json"
        body = answer.json()
        assert body["rule"] == "service.storage_unavailable"
        assert body["type"] == "urn:scoreledger:rule:service.storage_unavailable"
        assert body["status"] == 503


def test_redis_stopped_then_back(http: TestClient, server: RedisServer) -> None:
    write = _seed(http, server)
    server.stop()
    down = _down_answers(http, write)
    healthz, readyz = http.get("/healthz"), http.get("/readyz")
    server.start()  # same port and dir: back with the game's 5 events
    first_write = http.post(f"/games/{GAME}/events", json=write)
    first_reads = [http.get(p) for p in READS]
    print(
        f"\nredis stopped: {len(down)} requests -> {_tally(down)}; healthz "
        f"{healthz.status_code}, readyz {readyz.status_code}; after restart: write "
        f"{first_write.status_code}, reads {_tally(first_reads)}"
    )
    _assert_unavailable(down)
    assert (healthz.status_code, readyz.status_code) == (200, 503)
    assert first_write.status_code == 201, first_write.text
    assert first_write.json()["appended"][0] == {
        "event_id": write[0]["event_id"],
        "seq": 6,
        "duplicate": False,
    }
    assert [r.status_code for r in first_reads] == [200] * len(READS)


def test_redis_frozen_then_thawed(http: TestClient, server: RedisServer) -> None:
    write = _seed(http, server)
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGSTOP)  # accepts connections, answers nothing
    try:
        frozen = _down_answers(http, write)
        readyz = http.get("/readyz")
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    after = _answers(http, write)
    print(f"\nredis frozen: {_tally(frozen)}, readyz {readyz.status_code}; thawed: {_tally(after)}")
    _assert_unavailable(frozen)
    assert readyz.status_code == 503
    assert [r.status_code for r in after] == [201] + [200] * len(READS)


RAW_FAULTS = [
    kind("3999 127.0.0.1:7001") if issubclass(kind, rexc.AskError) else kind("from the test")
    for kind in FAULTS
] + [rexc.ResponseError(f"{code} from the test") for code in FAULT_REPLIES]


@pytest.mark.parametrize("fault", RAW_FAULTS, ids=lambda f: f"{type(f).__name__}:{str(f)[:10]}")
def test_every_storage_fault_is_a_503(fault: Exception) -> None:
    """LOADING, cluster down, pool exhausted, ... raised by the Redis client (which raises
    them as the ports' `StoreUnavailable`) in a route: 503, never 500."""
    app = FastAPI()
    install_problem_handlers(app)

    @app.get("/boom")
    async def boom() -> None:
        raise translated(fault)

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/boom")
    _assert_unavailable([answer])
    assert "from the test" not in answer.text  # the reason is ours, not Redis's message


def test_other_errors_stay_500() -> None:
    app = FastAPI()
    install_problem_handlers(app)

    @app.get("/boom")
    async def boom() -> None:
        raise translated(rexc.DataError("a bug, not a fault"))

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/boom")
    assert answer.status_code == 500
    assert "retry-after" not in answer.headers


async def test_sse_ends_cleanly_while_redis_is_down(server: RedisServer) -> None:
    """Both SSE routes, Redis stopped after the app came up: the stream ends with a comment
    naming the fault and `retry` (no aborted connection, no ASGI error)."""
    from tests.web.conftest import serving

    settings = ServiceSettings(
        redis_url=server.url, shards=4, redis_retries=1, redis_connect_timeout_s=0.5
    )
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    ended: dict[str, str] = {}
    async with serving(app) as url:
        server.stop()
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            for path in (f"/games/{GAME}/live", "/games/live"):
                async with client.stream("GET", path) as response:
                    assert response.status_code == 200
                    ended[path] = "".join([chunk async for chunk in response.aiter_text()])
    print(f"\nsse with redis down: {ended}")
    for text in ended.values():
        assert text == ": storage unavailable: Redis unreachable\nretry: 1000\n\n"


async def test_sse_ends_cleanly_when_redis_was_down_from_the_start() -> None:
    """The app came up without Redis (the change hub never took its positions): a new stream
    waits a few seconds, then ends cleanly instead of hanging."""
    from tests.redis_fixture import free_port
    from tests.web.conftest import serving

    settings = ServiceSettings(
        redis_url=f"redis://127.0.0.1:{free_port()}/0",
        redis_retries=1,
        redis_connect_timeout_s=0.5,
    )
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    async with (
        serving(app) as url,
        httpx.AsyncClient(base_url=url, timeout=30) as client,
        client.stream("GET", "/games/live") as response,
    ):
        text = "".join([chunk async for chunk in response.aiter_text()])
    print(f"\nsse, redis never up: {response.status_code} {text!r}")
    assert response.status_code == 200
    assert text == ": storage unavailable: Redis unreachable\nretry: 1000\n\n"


async def test_the_forwarded_write_keeps_ingests_retry_after() -> None:
    """A split deployment: the query service forwards the page's writes to ingest; ingest's
    503 reaches the browser with its `Retry-After`."""
    from services.doors.web.forward import forward_router
    from services.platform.problems import RETRY_AFTER_S
    from services.platform.settings import QuerySettings
    from tests.web.conftest import serving

    ingest = FastAPI()
    install_problem_handlers(ingest)

    @ingest.post("/games/{game_id}/events")
    async def down(game_id: str) -> None:
        raise translated(rexc.ConnectionError("refused"))  # as the client raises it

    async with serving(ingest) as ingest_url:
        query = FastAPI()
        query.include_router(forward_router(QuerySettings(ingest_url=ingest_url)))
        transport = httpx.ASGITransport(app=query)
        async with httpx.AsyncClient(transport=transport, base_url="http://q") as client:
            answer = await client.post(f"/games/{GAME}/events", content=b"{}")
    print(f"\nforwarded while ingest's Redis is down: {answer.status_code}, {answer.headers}")
    _assert_unavailable([answer])
    assert answer.headers["retry-after"] == str(RETRY_AFTER_S)
