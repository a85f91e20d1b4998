"""Write tokens: issued once per game, stored only as a digest, checked on every later write."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis
from fastapi import FastAPI

from services.adapters.redis.credentials import (
    TokenError,
    WriteAccess,
    WriteTokens,
    digest,
    token_key,
)
from services.adapters.redis.eventlog import RedisEventLog
from services.keys import Keys
from services.settings import QuerySettings
from tests.web.builders import example
from tests.web.conftest import Stack

pytestmark = pytest.mark.redis
KEYS = Keys(16)


@pytest.fixture
async def tokens(redis_client: aioredis.Redis) -> WriteTokens:
    return WriteTokens(redis_client, KEYS)


async def test_issue_stores_only_a_digest_and_only_once(
    tokens: WriteTokens, redis_client: aioredis.Redis
) -> None:
    token = await tokens.issue("g-1")
    assert token is not None
    assert len(token) >= 43
    stored = await redis_client.get(token_key(KEYS, "g-1"))
    assert stored.decode() == digest(token) != token
    assert KEYS.tag("g-1") in token_key(KEYS, "g-1")  # the game's slot
    assert await tokens.issue("g-1") is None  # never re-issued


async def test_check(tokens: WriteTokens, redis_client: aioredis.Redis) -> None:
    assert (await tokens.check("new-game", None)).creating  # nothing stored yet: a creation
    token = await tokens.issue("g-1")
    assert not (await tokens.check("g-1", token)).creating
    with pytest.raises(TokenError, match="need") as missing:
        await tokens.check("g-1", None)
    assert missing.value.status == 401
    with pytest.raises(TokenError, match="not game") as wrong:
        await tokens.check("g-1", token + "x")
    assert wrong.value.status == 403
    events = example()  # a game created through the inbox: no token
    await RedisEventLog(redis_client, KEYS).append(events[0].game_id, list(events[:1]))
    with pytest.raises(TokenError, match="no write token") as tokenless:
        await tokens.check(events[0].game_id, "anything")
    assert tokenless.value.status == 403


@pytest.fixture
async def guarded(clean_redis_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A one-route app guarded by `WriteAccess`: counts the writes that got through."""
    app = FastAPI()
    app.state.settings = QuerySettings(redis_url=clean_redis_url)
    app.state.redis = aioredis.Redis.from_url(clean_redis_url)
    app.state.writes = 0

    @app.post("/games/{game_id}/events")
    async def write(game_id: str, grant: WriteAccess) -> dict[str, object]:
        app.state.writes += 1
        return {"creating": grant.creating}

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        client.app = app  # type: ignore[attr-defined]
        yield client
    await app.state.redis.aclose()


async def test_dependency_answers_401_403_and_runs_nothing(guarded: httpx.AsyncClient) -> None:
    app = guarded.app  # type: ignore[attr-defined]
    assert (await guarded.post("/games/g-9/events")).json() == {"creating": True}
    token = await WriteTokens(app.state.redis, KEYS).issue("g-9")
    missing = await guarded.post("/games/g-9/events")
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["detail"]["error"] == "token_required"
    wrong = await guarded.post("/games/g-9/events", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert wrong.json()["detail"]["error"] == "token_rejected"
    basic = await guarded.post("/games/g-9/events", headers={"Authorization": "Basic abc"})
    assert basic.status_code == 401
    assert app.state.writes == 1
    ok = await guarded.post("/games/g-9/events", headers={"Authorization": f"Bearer {token}"})
    assert ok.json() == {"creating": False}
    assert app.state.writes == 2


async def test_ingest_over_http_needs_the_token_and_changes_nothing_without_it(
    stack: Stack,
) -> None:
    events = list(example())
    game_id = events[0].game_id
    created = await stack.post(events[:3])
    assert created.status_code == 201
    token = created.json()["write_token"]
    assert await stack.redis.get(token_key(KEYS, game_id)) == digest(token).encode()
    missing = await stack.client.post(f"/games/{game_id}/events", json=[events[3].to_wire()])
    wrong = await stack.post(events[3:4], token="not-the-token")
    assert (missing.status_code, wrong.status_code) == (401, 403)
    assert await stack.store.version(game_id) == 3
    ok = await stack.post(events[3:5])
    assert ok.status_code == 201
    assert "write_token" not in ok.json()
    assert await stack.store.version(game_id) == 5
    assert (
        await stack.client.get(f"/games/{game_id}/timeline")
    ).status_code == 200  # reads need none
