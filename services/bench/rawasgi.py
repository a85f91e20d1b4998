"""The reference read route: a raw ASGI app (no framework) answering
`GET /games/{id}/standings` with ONE Redis call, the query service's own (a Lua script: the
projection's standings JSON and updated_at, and the shard checkpoint), the stored JSON returned
as bytes. Run: `BENCH_REDIS_URL=... python -m uvicorn services.bench.rawasgi:app --port P`."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import redis.asyncio as aioredis

from services.bench.layout import checkpoint_of, projection

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
STANDINGS_LUA = """
return {redis.call('HGET', KEYS[1], 'standings'), redis.call('HGET', KEYS[1], 'updated_at'),
  redis.call('GET', KEYS[2])}
"""
_client = aioredis.Redis.from_url(os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0"))
_script = _client.register_script(STANDINGS_LUA)


async def app(
    scope: Scope,
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    """ASGI entry point: standings bytes (200), 404 for anything else or a missing projection."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    parts = scope["path"].split("/")
    body, status = b"not found", 404
    if len(parts) == 4 and parts[1] == "games" and parts[3] == "standings":
        game_id = parts[2]
        got = await _script(keys=[projection(game_id), checkpoint_of(game_id)])
        if got[0]:
            body, status = got[0], 200
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
