"""A long replay does not hold the event loop: `/healthz` answers while `/series` of a
6,000-event game runs (behaviour only, no timing threshold: the order of completion), and a
replay is computed once per (game, version). Source: issue 9."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from contracts.events import parse_event_json
from services.bench.fold_cost import long_game
from services.usecases.readmodels import replay
from tests.query.conftest import Seeder


async def test_healthz_answers_while_a_6000_event_series_runs(
    api: httpx.AsyncClient, seeder: Seeder, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = [parse_event_json(line) for line in long_game(6_000)]
    await seeder.append(events)
    game = events[0].game_id
    done: list[str] = []
    started, release = threading.Event(), threading.Event()
    original = replay.series

    def held_series(log: Any) -> dict[str, Any]:
        # The replay waits for healthz's answer (at most 10 s: run on the event loop, as
        # before issue 9, nothing could answer meanwhile and the order below is reversed).
        started.set()
        release.wait(10)
        return original(log)

    monkeypatch.setattr(replay, "series", held_series)

    async def series() -> httpx.Response:
        response = await api.get(f"/games/{game}/series")
        done.append("series")
        return response

    async def healthz() -> httpx.Response:
        while not started.is_set():  # the replay is running
            await asyncio.sleep(0.001)
        response = await api.get("/healthz")
        done.append("healthz")
        release.set()
        return response

    got_series, got_health = await asyncio.gather(series(), healthz())
    assert got_health.status_code == 200
    assert got_series.status_code == 200
    assert done == ["healthz", "series"]
    body = got_series.json()
    assert len(body["per_event"]) == 6_000
    assert body["per_event"][-1]["seq"] == 6_000


async def test_a_replay_is_kept_per_game_version(api: httpx.AsyncClient, seeder: Seeder) -> None:
    events = [parse_event_json(line) for line in long_game(200)]
    await seeder.append(events[:150])
    game = events[0].game_id
    first = (await api.get(f"/games/{game}/timeline")).json()
    assert len(first["events"]) == 150
    assert (await api.get(f"/games/{game}/timeline")).json() == first
    await seeder.append(events[150:])  # a new version is a new replay, not the cached one
    assert len((await api.get(f"/games/{game}/timeline")).json()["events"]) == 200
