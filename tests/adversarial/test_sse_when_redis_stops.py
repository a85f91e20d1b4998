"""An SSE stream already open when Redis goes away ends within seconds with the comment
`storage unavailable: ...` and `retry` (the change hub's reader gives up waiting after
`ChangeHub.down_after_s`, services/doors/push/hub.py), on both `/games/live` and `/games/{id}/live`;
once Redis is back, the reconnecting client (`Last-Event-ID`) gets the change it missed.
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (honest answers while the storage is down).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
import redis

from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import Roles, build_app
from services.platform.settings import ServiceSettings
from tests.redis_fixture import RedisServer

pytestmark = pytest.mark.redis
WAIT_S = 15.0
"""How long the open stream is given to say the storage is gone (a hang guard)."""


@pytest.mark.parametrize("path", ["/games/live", "/games/tr-break-sse-1/live"])
async def test_open_sse_stream_says_so_when_redis_stops(server: RedisServer, path: str) -> None:
    """The stream is open (first frame read), then Redis stops: within `WAIT_S` the stream
    ends with the storage comment (as a new stream does), not stay open silent."""
    from tests.web.conftest import serving

    settings = ServiceSettings(
        redis_url=server.url, shards=4, redis_retries=1, redis_connect_timeout_s=0.5
    )
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    if path != "/games/live":  # the game exists (an unknown one is a 404), not projected yet
        redis.Redis.from_url(server.url).xadd(Keys(4).game_stream("tr-break-sse-1"), {"seq": 1})
    seen: list[str] = []
    outcome = "open"
    async with (
        serving(app) as url,
        httpx.AsyncClient(base_url=url, timeout=WAIT_S + 5) as client,
        client.stream("GET", path) as response,
    ):
        if True:  # keep the reading block's indentation
            chunks = response.aiter_text()
            if path == "/games/live":
                seen.append(await anext(chunks))  # the first frame: the games list
            else:
                await asyncio.sleep(1.0)  # not projected: no first frame, the stream is open
            server.stop()
            try:
                async with asyncio.timeout(WAIT_S):
                    async for chunk in chunks:
                        seen.append(chunk)
                outcome = "ended"
            except TimeoutError:
                outcome = f"still open after {WAIT_S:.0f} s"
    tail = "".join(seen)[-200:]
    print(f"\n{path}: Redis stopped while open -> {outcome}; last text {tail!r}")
    assert outcome == "ended"
    assert "storage unavailable" in tail


GAME = "tr-sse-resume-1"


async def test_the_reconnecting_client_gets_the_change_it_missed(tmp_path: Path) -> None:
    """Redis (with AOF) stops while a game's stream is open: the stream ends with the storage
    comment; Redis comes back and the game changes; the client reconnecting with the last id
    it saw (retrying as EventSource does, every second) gets a frame of the new change."""
    from tests.web.conftest import serving

    server = RedisServer(tmp_path, appendonly=True).start()
    try:
        settings = ServiceSettings(
            redis_url=server.url, shards=4, redis_retries=1, redis_connect_timeout_s=0.5
        )
        keys = Keys(settings.shards)
        sync = redis.Redis.from_url(server.url)
        first = _change(sync, keys, 1)
        app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
        async with (
            serving(app) as url,
            httpx.AsyncClient(base_url=url, timeout=WAIT_S + 5) as client,
        ):
            async with client.stream("GET", f"/games/{GAME}/live") as response:
                chunks = response.aiter_text()
                opening = await anext(chunks)
                server.stop()
                async with asyncio.timeout(WAIT_S):
                    ending = "".join([chunk async for chunk in chunks])
            server.start()
            missed = _change(redis.Redis.from_url(server.url), keys, 2)
            attempts, text = 0, ""
            async with asyncio.timeout(WAIT_S):
                while f"id: {missed}" not in text:
                    attempts += 1
                    text = await _read_until(client, first, f"id: {missed}")
    finally:
        server.stop()
    print(
        f"\nopened at {first} ({f'id: {first}' in opening}), ended {ending.strip()!r}; "
        f"reconnects {attempts} until the missed change {missed} arrived"
    )
    assert f"id: {first}" in opening
    assert "storage unavailable" in ending
    assert "retry: 1000" in ending
    assert f"id: {missed}" in text


def _change(client: redis.Redis, keys: Keys, seq: int) -> str:
    """Store a projection of `GAME` at `seq` and its change entry (as the projector does)."""
    client.xadd(keys.game_stream(GAME), {"seq": seq})  # the game exists (else 404)
    client.hset(keys.projection(GAME), mapping={"seq": str(seq), "updated_at": f"t{seq}"})
    entry = client.xadd(keys.changes(shard_of(GAME, keys.shards)), {"game": GAME, "seq": seq})
    return entry.decode() if isinstance(entry, bytes) else str(entry)


async def _read_until(client: httpx.AsyncClient, last_id: str, wanted: str) -> str:
    """One reconnect with `Last-Event-ID`: the text read until `wanted` or the stream's end
    (a refused or failed connect counts as an empty answer, then a 1 s pause, as `retry`)."""
    text = ""
    try:
        async with (
            asyncio.timeout(3.0),
            client.stream("GET", f"/games/{GAME}/live", headers={"Last-Event-ID": last_id}) as r,
        ):
            async for chunk in r.aiter_text():
                text += chunk
                if wanted in text:
                    return text
    except (TimeoutError, httpx.HTTPError):
        pass
    await asyncio.sleep(1.0)
    return text
