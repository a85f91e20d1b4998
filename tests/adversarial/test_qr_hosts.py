"""The QR codes of `/games/{id}/qr.svg` and `/tournaments/{id}/qr.svg` against hostile `Host`
headers: a Host too long for a QR code (about 2,330 bytes) answered 500 (segno's
`DataOverflowError`), and random long Hosts drew a fresh code on the event loop each (about
50 ms for a 250-byte Host, 485 ms for 2,000 bytes), past the cache. Now a Host longer than a
DNS name or not one is refused (400 `qr.host`), and codes are drawn off the loop."""

from __future__ import annotations

import asyncio
import random
import string
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.doors.web.routes import web_router
from services.platform import qr
from services.platform.settings import ServiceSettings
from services.tournaments.doors.web import tournament_web_router
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH

GAME = "pen-qr"


class _OneGame:
    """The read models' game log as `web_router`'s QR route sees it: one stored game."""

    async def version(self, game_id: str) -> int:
        return 3 if game_id == GAME else 0


class _Reads:
    log = _OneGame()


@pytest.fixture
def client() -> Iterator[TestClient]:
    cases = use_cases(memory_ports(4), ServiceSettings())
    settings = ServiceSettings()
    app = FastAPI()
    app.include_router(league_app(cases).router)
    app.include_router(web_router(_Reads(), settings))  # type: ignore[arg-type]
    app.include_router(tournament_web_router(cases.tournaments, settings))
    with TestClient(app) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert http.post("/tournaments", json=new, headers=AUTH).status_code == 201
        yield http


PATHS = (f"/games/{GAME}/qr.svg", "/tournaments/cup/qr.svg")


@pytest.mark.parametrize("path", PATHS)
def test_a_host_too_long_for_a_qr_code_is_refused_not_500(client: TestClient, path: str) -> None:
    host = "a" * 2330 + ".example"
    answer = client.get(path, headers={"Host": host})
    assert answer.status_code == 400, answer.text[:200]
    assert answer.json()["rule"] == "qr.host"
    assert answer.json()["field"] == "Host"
    # The longest DNS name (253 characters) with a port is still a fine base.
    name = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    good = client.get(path, headers={"Host": f"{name}:8443"})
    assert good.status_code == 200
    assert good.headers["x-qr-url"].startswith(f"http://{name}:8443/")


@pytest.mark.parametrize("path", PATHS)
def test_a_host_that_is_not_a_host_name_is_refused(client: TestClient, path: str) -> None:
    for host in ("evil.example/../x", "a b", "x" * 64 + ".example", "[::1"):
        answer = client.get(path, headers={"Host": host})
        assert (answer.status_code, answer.json()["rule"]) == (400, "qr.host"), host
    assert client.get(path, headers={"Host": "[::1]:8000"}).status_code == 200


def test_random_hosts_are_drawn_off_the_loop_into_a_bounded_cache(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 300 distinct 250-byte Hosts: each a new code (~50 ms of segno each). Drawn on the
    # event loop they stalled every other request; they must be drawn in a worker thread, and
    # the cache must stay at its bound.
    on_a_loop: list[bool] = []
    draw = qr.draw_svg

    def spy(url: str) -> bytes:
        try:
            asyncio.get_running_loop()
            on_a_loop.append(True)
        except RuntimeError:  # no event loop runs in this thread
            on_a_loop.append(False)
        return draw(url)

    monkeypatch.setattr(qr, "draw_svg", spy)
    rng = random.Random(31)
    for _ in range(300):
        host = "".join(rng.choices(string.ascii_lowercase, k=60)) + "." + "q" * 60 + ".example"
        answer = client.get(PATHS[rng.randrange(2)], headers={"Host": host})
        assert answer.status_code == 200
    assert on_a_loop == [False] * 300  # every code drawn, none on an event loop's thread
    assert len(qr.CODES.cache) <= qr.CACHE_ITEMS
