"""Held resources of the live streams are bounded per client: one anonymous client opening a
`/tournaments/{id}/live` stream on tournament after tournament took every watched-tournament
slot of the process (200), and every other room screen then got 503 `tournament.watch_full`.
Now a client follows at most `watch_per_client` tournaments at once (429
`tournament.watch_client_limit` past it) and holds at most `live_per_client` streams (429
`live.client_limit`), while another client still gets in. Clients are told apart by their
address: the streams here come from 127.0.0.2 and 127.0.0.3 (all of 127/8 is loopback)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI

from contracts.tournament import TournamentCreated
from services.adapters.redis.keys import Keys
from services.bootstrap import Roles, assemble, build, memory_ports, use_cases
from services.doors.asgi.http_errors import install_problem_handlers
from services.doors.push.holds import ClientHolds
from services.platform.settings import ServiceSettings
from services.tournaments.doors import push
from tests.redis_fixture import sync_client
from tests.web.conftest import serving

A, B = "127.0.0.2", "127.0.0.3"
_kept: list[AsyncIterator[str]] = []


async def _app(
    ids: list[str], max_tournaments: int, watch_per_client: int = 20, live_per_client: int = 64
) -> FastAPI:
    cases = use_cases(memory_ports(4), ServiceSettings()).tournaments
    for tid in ids:
        await cases.record(tid, [TournamentCreated(title=tid, game="penumbra", rounds=1)], "o", "d")
    watch = push.TournamentWatch(cases, 0.05, max_tournaments, watch_per_client)
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(push.tournament_push_router(watch, ClientHolds(live_per_client)))
    return app


@asynccontextmanager
async def _client(url: str, address: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=10) as client:
        yield client


async def _open(stack: AsyncExitStack, client: httpx.AsyncClient, tid: str) -> httpx.Response:
    """A stream of `tid`, kept open by `stack`; its first frame read when it answered 200."""
    response = await stack.enter_async_context(client.stream("GET", f"/tournaments/{tid}/live"))
    if response.status_code == 200:
        lines = response.aiter_lines()
        _kept.append(lines)  # a dropped iterator would close the stream when collected
        async with asyncio.timeout(10):
            while not (await anext(lines)).startswith("data: "):
                pass
    else:
        await response.aread()
    return response


async def test_one_client_cannot_take_every_watched_tournament_slot() -> None:
    ids = [f"t{n}" for n in range(7)]
    app = await _app(ids, max_tournaments=6, watch_per_client=2)
    async with (
        serving(app) as url,
        _client(url, A) as a,
        _client(url, B) as b,
        AsyncExitStack() as stack,
    ):
        answers = [(await _open(stack, a, tid)).status_code for tid in ids[:6]]
        assert answers == [200, 200, 429, 429, 429, 429]
        refused = await _open(stack, a, "t6")
        assert refused.json()["rule"] == "tournament.watch_client_limit"
        assert refused.json()["limit"] == "SCORELEDGER_WATCH_PER_CLIENT"
        assert int(refused.headers["retry-after"]) >= 1
        # another room screen still gets in, and a's second screen on one it follows too
        assert (await _open(stack, b, "t6")).status_code == 200
        assert (await _open(stack, a, "t0")).status_code == 200


async def test_one_client_holds_at_most_its_share_of_streams() -> None:
    app = await _app(["cup"], max_tournaments=6, live_per_client=3)
    async with (
        serving(app) as url,
        _client(url, A) as a,
        _client(url, B) as b,
        AsyncExitStack() as stack,
    ):
        answers = [(await _open(stack, a, "cup")).status_code for _ in range(5)]
        assert answers == [200, 200, 200, 429, 429]
        refused = await _open(stack, a, "cup")
        assert refused.json()["rule"] == "live.client_limit"
        assert refused.json()["limit"] == "SCORELEDGER_LIVE_PER_CLIENT"
        assert (await _open(stack, b, "cup")).status_code == 200


@pytest.mark.redis
async def test_game_streams_are_bounded_per_client_too(clean_redis_url: str) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4, live_per_client=2)
    sync_client(clean_redis_url).xadd(Keys(4).game_stream("g-live"), {"seq": 1})  # or a cluster
    app = assemble(build(settings), Roles(inbox=False, projector=False)).app
    async with (
        serving(app) as url,
        _client(url, A) as a,
        _client(url, B) as b,
        AsyncExitStack() as stack,
    ):
        paths = ["/games/g-live/live", "/games/live", "/games/g-live/live"]
        answers = [await stack.enter_async_context(a.stream("GET", p)) for p in paths]
        assert [r.status_code for r in answers] == [200, 200, 429]
        await answers[2].aread()
        assert answers[2].json()["rule"] == "live.client_limit"
        games_list = await stack.enter_async_context(a.stream("GET", "/games/live"))
        async with asyncio.timeout(10):
            said = (await games_list.aread()).decode()  # ends at once: nothing is held
        assert ": refused: live.client_limit" in said
        other = await stack.enter_async_context(b.stream("GET", "/games/g-live/live"))
        assert other.status_code == 200
