"""Regression tests (docs/decisions/0011-faults-are-answered-not-crashed.md): Redis faults that reach the
app as a plain `ResponseError` (NOREPLICAS, MISCONF, BUSY; services/doors/asgi/http_errors.py
`STORAGE_FAULT_REPLIES`) answer 503 `service.storage_unavailable` with `Retry-After: 1`, not
500. A real redis-server is put in each state.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.doors.fault_support import seed_game, short_timeout_client
from tests.redis_fixture import RedisServer, sync_client

pytestmark = pytest.mark.redis
GAME = "tr-break-faults-1"


@pytest.fixture
def http(server: RedisServer) -> Iterator[TestClient]:
    with short_timeout_client(server.url, socket_timeout_s=2.0) as client:
        yield client


def _seed(http: TestClient) -> dict[str, object]:
    return seed_game(http, GAME)


def _show(what: str, answer: object) -> str:
    status = getattr(answer, "status_code", None)
    headers = getattr(answer, "headers", {})
    text = getattr(answer, "text", "")[:200]
    line = f"{what}: {status} retry-after={headers.get('retry-after')} {text}"
    print(f"\n{line}")
    return line


def test_write_refused_for_missing_replicas_is_a_503_not_a_500(
    http: TestClient, server: RedisServer
) -> None:
    """`min-replicas-to-write 1` without a replica: Redis refuses every write with
    `NOREPLICAS` (a plain ResponseError); the append answers 503 with Retry-After."""
    write = _seed(http)
    admin = sync_client(server.url)
    admin.config_set("min-replicas-to-write", 1)
    try:
        answer = http.post(f"/games/{GAME}/events", json=[write])
    finally:
        admin.config_set("min-replicas-to-write", 0)
        admin.close()
    _show("NOREPLICAS write", answer)
    assert answer.status_code == 503
    assert answer.headers.get("retry-after") == "1"


def test_write_refused_when_redis_cannot_persist_is_a_503_not_a_500(
    http: TestClient, server: RedisServer
) -> None:
    """A failed background save with `stop-writes-on-bgsave-error yes` (the default): Redis
    refuses writes with `MISCONF` (a plain ResponseError); the append answers 503 with
    Retry-After. The failed save is provoked by removing the server's working directory."""
    write = _seed(http)
    admin = sync_client(server.url)
    # make the next BGSAVE fail: the server's working directory is gone (BGSAVE writes there)
    server_dir = Path(str(admin.config_get("dir")["dir"]))
    shutil.rmtree(server_dir)
    admin.config_set("save", "3600 1")  # MISCONF needs save points (the fixture has none)
    admin.config_set("stop-writes-on-bgsave-error", "yes")
    try:
        admin.bgsave()
        for _ in range(100):
            if admin.info("persistence")["rdb_last_bgsave_status"] == "err":
                break
            time.sleep(0.05)
        status = admin.info("persistence")["rdb_last_bgsave_status"]
        answer = http.post(f"/games/{GAME}/events", json=[write])
    finally:
        admin.config_set("stop-writes-on-bgsave-error", "no")
        admin.config_set("save", "")
        server_dir.mkdir(parents=True, exist_ok=True)
        admin.close()
    _show(f"MISCONF write (last bgsave {status})", answer)
    assert status == "err", "could not provoke a failed BGSAVE"
    assert answer.status_code == 503
    assert answer.headers.get("retry-after") == "1"


def test_reads_while_a_script_keeps_redis_busy_are_503_not_500(
    http: TestClient, server: RedisServer
) -> None:
    """A long Lua script (another client) past `busy-reply-threshold`: Redis answers `BUSY`
    (a plain ResponseError, inside a pipeline's annotated error for /games) to every other
    command; both reads answer 503 with Retry-After."""
    _seed(http)
    admin = sync_client(server.url)
    admin.config_set("busy-reply-threshold", 100)
    busy = sync_client(server.url)

    def spin() -> None:
        with contextlib.suppress(Exception):  # killed below
            busy.eval(
                "local t = redis.call('TIME')[1] while redis.call('TIME')[1] - t < 3 do end", 0
            )

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    time.sleep(0.5)
    try:
        answers = [http.get(f"/games/{GAME}/events"), http.get("/games")]
    finally:
        with contextlib.suppress(Exception):
            admin.script_kill()
        thread.join(10)
        admin.close()
        busy.close()
    lines = [_show("BUSY read", a) for a in answers]
    assert [a.status_code for a in answers] == [503, 503], lines
    assert all(a.headers.get("retry-after") == "1" for a in answers)
