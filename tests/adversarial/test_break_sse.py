"""BREAK (reviewer wt/break): an SSE stream that is already open when Redis goes away
(services/push/routes.py + `ends_cleanly`, "faults" merge). The merged tests open the stream
after Redis stopped; here Redis stops while the client is reading. Minimal reproduction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.bootstrap import Roles, build_app
from services.settings import ServiceSettings
from tests.redis_fixture import RedisServer

pytestmark = pytest.mark.redis
WAIT_S = 15.0
"""How long the open stream is given to say the storage is gone (a hang guard)."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    redis_server = RedisServer(tmp_path).start()
    try:
        yield redis_server
    finally:
        redis_server.stop()


@pytest.mark.parametrize("path", ["/games/live", "/games/tr-break-sse-1/live"])
async def test_break_open_sse_stream_says_so_when_redis_stops(
    server: RedisServer, path: str
) -> None:
    """BREAK?: the stream is open (first frame read), then Redis stops. Within `WAIT_S` the
    stream should end with the storage comment (as a new stream does), not stay open silent."""
    from tests.web.conftest import serving

    settings = ServiceSettings(
        redis_url=server.url, shards=4, redis_retries=1, redis_connect_timeout_s=0.5
    )
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
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
                await asyncio.sleep(1.0)  # an unknown game: no first frame, the stream is open
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
