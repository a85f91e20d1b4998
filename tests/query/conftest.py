"""Fixtures for the query service tests: the app on a clean real Redis, and seeded games.

Games are appended through the real event store; the projection HASH is written the way the
projector's contract says (`Keys.projection`: seq, status, game, standings JSON, updated_at,
and with `view=True` the rendered view and its seq), from the pure fold, so the read side is
tested against that contract.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from contracts.envelope import Envelope
from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import Roles, build_app
from services.cli.offline import parse_lines
from services.doors.query import metrics as query_metrics
from services.platform.settings import ServiceSettings
from services.usecases.readmodels.render import view_json

DATA = Path(__file__).parent.parent / "cli" / "data"


def load(name: str) -> list[Envelope]:
    """The events of a bundled JSONL log under tests/cli/data/."""
    with (DATA / name).open(encoding="utf-8") as handle:
        return [event for _, event in parse_lines(handle)]


def crossing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the HTTP requests that cross an app's middleware from now on (appended
    as they enter the metrics middleware), for the test's duration."""
    paths: list[str] = []
    real = query_metrics.MetricsMiddleware.__call__

    async def spy(self: Any, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            paths.append(scope["path"])
        await real(self, scope, receive, send)

    monkeypatch.setattr(query_metrics.MetricsMiddleware, "__call__", spy)
    return paths


@dataclass
class Seeder:
    """Appends logs to the store and writes projections as the projector would."""

    client: aioredis.Redis
    keys: Keys

    async def append(self, events: list[Envelope]) -> None:
        await RedisEventLog(self.client, self.keys).append(events[0].game_id, events)

    async def seed(self, events: list[Envelope], **projection: Any) -> None:
        """Append `events`, then write their projection (`project`, given `projection`'s
        `updated_at` / `view`): a game the projector is done with."""
        await self.append(events)
        await self.project(events, **projection)

    async def project(
        self,
        events: list[Envelope],
        updated_at: str = "2026-11-30T10:00:00+00:00",
        view: bool = False,
    ) -> None:
        """Write the projection of `events`; with `view`, the rendered view too (the current
        projector's HASH), else none (an older projector's)."""
        state = fold(events)
        result = standings(state)
        game_id = result.game_id
        fields: dict[str, str | int | bytes] = {
            "seq": result.seq,
            "status": result.status,
            "game": result.game,
            "standings": result.model_dump_json(),
            "updated_at": updated_at,
        }
        if view:
            fields["view"] = view_json(result, state.cache)
            fields["view_seq"] = result.seq
        await self.client.hset(self.keys.projection(game_id), mapping=fields)  # type: ignore[arg-type]
        await self.client.set(
            self.keys.checkpoint(shard_of(game_id, self.keys.shards)), "1700000000000-5"
        )


@pytest.fixture
async def seeder(redis_client: aioredis.Redis) -> Seeder:
    return Seeder(redis_client, Keys(16))


@pytest.fixture
async def api(clean_redis_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client on the query role's app with its lifespan running (same event loop)."""
    settings = ServiceSettings(redis_url=clean_redis_url, shards=16, max_lag_events=3)
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as client:
            yield client
