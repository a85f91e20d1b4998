"""The lean live stream `GET /games/{id}/live` (docs/decisions/0012-hot-reads-and-off-loop-replays.md): raw ASGI with FastAPI's SSE headers;
each change's frame is rendered once and the same bytes go to every subscriber; a client that
goes away is unsubscribed; an idle subscription gets the hub's keep-alive."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest
import redis.asyncio as aioredis

from services.adapters.redis.keys import Keys
from services.bootstrap import change_hub, redis_ports
from services.doors.asgi.lean import LeanRoute
from services.doors.push import routes
from services.doors.push.hub import Delivery, Signal
from tests.web import sse
from tests.web.conftest import SHARDS, Stack

pytestmark = pytest.mark.redis


async def test_one_render_per_change_for_every_subscriber(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    renders: list[str] = []
    original = routes._standings_frame

    def counted(delivery: Delivery) -> bytes:
        renders.append(delivery.change.entry_id)
        return original(delivery)

    monkeypatch.setattr(routes, "_standings_frame", counted)
    events = await stack.projected_example(3)
    game_id = events[0].game_id
    async with AsyncExitStack() as streams:
        readers = []
        for _ in range(20):
            response = await streams.enter_async_context(
                stack.client.stream("GET", f"/games/{game_id}/live")
            )
            assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
            assert response.headers["cache-control"] == "no-cache"
            assert response.headers["x-accel-buffering"] == "no"
            readers.append(sse.events(response))
        for reader in readers:
            assert (await anext(reader)).json()["standings"]["seq"] == 3
        await stack.append(events[3:4])
        got = await asyncio.wait_for(asyncio.gather(*(anext(r) for r in readers)), timeout=5)
    print(f"subscribers {len(readers)}, frames received {len(got)}, renders {len(renders)}")
    assert {(e.event, e.id, e.data) for e in got} == {(got[0].event, got[0].id, got[0].data)}
    assert got[0].json()["change"]["seq"] == 4
    assert got[0].json()["compact"] is True
    assert renders == [got[0].id]


async def test_the_live_route_is_the_lean_one_and_a_gone_client_is_unsubscribed(
    stack: Stack,
) -> None:
    lean = [r for r in stack.app.router.routes if isinstance(r, LeanRoute)]
    assert "/games/{game_id}/live" in {r.path for r in lean}
    events = await stack.projected_example(2)
    game_id = events[0].game_id
    hub = stack.hub
    assert hub is not None
    async with stack.client.stream("GET", f"/games/{game_id}/live") as response:
        await anext(sse.events(response))
        assert hub.subscriber_count == 1
    async with asyncio.timeout(5):  # the disconnect watcher ends the stream
        while hub.subscriber_count:
            await asyncio.sleep(0.02)


async def test_an_idle_subscription_gets_a_keep_alive(redis_client: aioredis.Redis) -> None:
    hub = change_hub(redis_ports(redis_client, Keys(SHARDS)), SHARDS, ping_s=0.05)
    await hub.start()
    try:
        async with hub.subscribe("idle-game") as sub:
            assert await asyncio.wait_for(sub.get(), timeout=2) is Signal.PING
            assert sub.queue.qsize() <= 1  # pings do not pile up in an unread queue
    finally:
        await hub.stop()
