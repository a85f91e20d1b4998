"""The query service over projections written by the real projector (not a hand-made HASH)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from domain.fold import fold
from domain.standings import standings
from services.bootstrap import running_projector
from services.platform.settings import ServiceSettings
from tests.query.conftest import Seeder, load

pytestmark = pytest.mark.redis


async def _until_projected(api: httpx.AsyncClient, game_id: str, seq: int) -> dict:
    for _ in range(200):
        response = await api.get(f"/games/{game_id}/standings")
        if response.status_code == 200 and response.json()["seq"] == seq:
            return response.json()  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(
        f"{game_id} not projected to seq {seq}: {response.status_code} {response.text}"
    )


@pytest.mark.parametrize("log_name", ["trickerion-demo.jsonl", "penumbra-demo.jsonl"])
async def test_projected_standings_equal_the_fold(
    api: httpx.AsyncClient, seeder: Seeder, clean_redis_url: str, log_name: str
) -> None:
    events = load(log_name)
    await seeder.append(events)
    async with running_projector(ServiceSettings(redis_url=clean_redis_url, shards=16)):
        body = await _until_projected(api, events[0].game_id, len(events))
    expected = standings(fold(events))
    assert body["checkpoint"] is not None
    assert (body["status"], body["winner"]) == (expected.status, expected.winner)
    assert [(p["player_id"], p["rank"], p["total"]) for p in body["players"]] == [
        (p.player_id, p.rank, p.total) for p in expected.players
    ]
    ready = (await api.get("/readyz")).json()
    assert ready["checks"]["projection_lag_events"] == 0
    games = (await api.get("/games")).json()["games"]
    assert [(g["game_id"], g["status"], g["seq"]) for g in games] == [
        (expected.game_id, expected.status, expected.seq)
    ]
