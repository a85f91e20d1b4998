"""Fixtures for the web tests: the whole service in-process on a free port (uvicorn), on the
project's real Redis, with the real projector running in the same event loop; and `browser`,
the headless Chromium the browser tests drive.

`stack` serves the query app with live push, the web scoreboard and the ingest router (write
tokens on); events are appended through `RedisEventLog` (the raw event log: a game created
that way has no write token) or over HTTP (`Stack.post`, which keeps each game's token).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
import uvicorn
from playwright.async_api import Browser, async_playwright

from contracts.envelope import Envelope
from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.bootstrap import Roles, assemble, build
from services.doors.push.hub import ChangeHub
from services.platform.settings import ServiceSettings
from tests.redis_fixture import free_port
from tests.web.builders import example

SHARDS = 16
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium, headless, driven by Playwright (no browser is downloaded)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: apt-get install chromium (deploy/scripts/system-deps.sh)"
        )
    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


@dataclass
class Stack:
    """A running service: `url`, an HTTP `client` on it, a Redis `redis` client, the `store`."""

    url: str
    client: httpx.AsyncClient
    redis: aioredis.Redis
    store: RedisEventLog
    app: Any
    settings: ServiceSettings
    hub: ChangeHub | None = None

    tokens: dict[str, str] = field(default_factory=dict)

    async def append(self, events: list[Envelope]) -> None:
        """Append straight to the store (no HTTP, no token)."""
        await self.store.append(events[0].game_id, events)

    async def post(self, events: list[Envelope], token: str | None = None) -> httpx.Response:
        """POST a batch to ingest with the game's token (the one kept from its creation)."""
        game_id = events[0].game_id
        token = token or self.tokens.get(game_id)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = await self.client.post(
            f"/games/{game_id}/events", json=[e.to_wire() for e in events], headers=headers
        )
        if response.status_code == 201 and "write_token" in response.json():
            self.tokens[game_id] = response.json()["write_token"]
        return response

    async def projected_example(self, upto: int) -> list[Envelope]:
        """The example game's events; its first `upto` appended to the store and projected."""
        events = list(example())
        await self.append(events[:upto])
        await self.wait_projected(events[0].game_id, upto)
        return events

    async def wait_projected(self, game_id: str, seq: int, timeout_s: float = 20.0) -> None:
        """Wait until the projector's HASH of `game_id` is at `seq`."""
        key = Keys(SHARDS).projection(game_id)
        async with asyncio.timeout(timeout_s):
            while int(await self.redis.hget(key, "seq") or 0) < seq:
                await asyncio.sleep(0.02)


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """Serve `app` with uvicorn on a free port of 127.0.0.1 for the block; yields its URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1
        )
    )
    task = asyncio.create_task(server.serve())
    async with asyncio.timeout(30):  # uvicorn's start-up at load average 8-10
        while not server.started:
            await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def stack(clean_redis_url: str) -> AsyncIterator[Stack]:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=SHARDS)
    assembled = assemble(build(settings), Roles(inbox=False))
    app = assembled.app
    redis = connect(clean_redis_url)
    try:
        async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
            yield Stack(
                url, client, redis, RedisEventLog(redis, Keys(SHARDS)), app, settings, assembled.hub
            )
    finally:
        await redis.aclose()
