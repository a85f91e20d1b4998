"""/healthz, /readyz (Redis and projector lag) and /metrics."""

from __future__ import annotations

import httpx
import pytest

from services.adapters.redis.keys import shard_of
from tests.query.conftest import Seeder, load

pytestmark = pytest.mark.redis


async def test_healthz(api: httpx.AsyncClient) -> None:
    response = await api.get("/healthz")
    assert (response.status_code, response.json()["status"]) == (200, "ok")


async def test_readyz_follows_projector_lag(api: httpx.AsyncClient, seeder: Seeder) -> None:
    ready = await api.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"]["projection_lag_events"] == 0
    events = load("penumbra-demo.jsonl")
    await seeder.append(events)  # 8 feed entries, none projected; the fixture allows 3
    lagging = await api.get("/readyz")
    assert lagging.status_code == 503
    assert lagging.json()["checks"]["projection_lag_events"] > 3
    # Move the checkpoint to the shard feed's 6th entry: 2 entries left, under the limit.
    shard = shard_of("pe-demo-1", seeder.keys.shards)
    entries = await seeder.client.xrange(seeder.keys.feed(shard))
    await seeder.client.set(seeder.keys.checkpoint(shard), entries[5][0])
    caught_up = await api.get("/readyz")
    assert caught_up.status_code == 200
    assert caught_up.json()["checks"]["projection_lag_events"] == 2


async def test_metrics_exposes_lag_and_requests(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(load("penumbra-demo.jsonl"))
    await api.get("/games/pe-demo-1/events")
    text = (await api.get("/metrics")).text
    # 8 unprojected entries; the count stops at max_lag_events + 1 = 4 (enough to say "not ready").
    assert "\nscoreledger_projection_lag_events 4.0" in text
    assert (
        'scoreledger_query_requests_total{route="/games/{game_id}/events",status="200"} 1.0' in text
    )


async def test_readyz_fails_without_redis() -> None:
    from services.bootstrap import Roles, build_app
    from services.platform.settings import ServiceSettings
    from tests.redis_fixture import free_port

    settings = ServiceSettings(redis_url=f"redis://127.0.0.1:{free_port()}/0")
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://q") as client,
    ):
        response = await client.get("/readyz")
        assert response.status_code == 503
        assert response.json()["checks"]["redis"].startswith("unreachable")
        assert (await client.get("/healthz")).status_code == 200
