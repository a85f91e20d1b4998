"""Polling helpers for pipeline tests (the projector is asynchronous)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import redis.asyncio as aioredis

from contracts.envelope import Envelope
from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.keys import Keys


async def wait_until(predicate: Any, timeout_s: float = 20.0, what: str = "condition") -> None:
    """Await `predicate()` (async, truthy when done) every 50 ms; AssertionError on timeout."""
    deadline = time.monotonic() + timeout_s
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        await asyncio.sleep(0.05)


async def projected_seqs(client: aioredis.Redis, keys: Keys, games: list[str]) -> dict[str, int]:
    """game -> the projection's stored seq (0 when absent)."""
    out = {}
    for g in games:
        seq = await client.hget(keys.projection(g), "seq")
        out[g] = int(seq) if seq else 0
    return out


async def wait_projected(
    client: aioredis.Redis, keys: Keys, expected: dict[str, int], timeout_s: float = 20.0
) -> None:
    """Wait until every game's projection is at its expected seq."""

    async def done() -> bool:
        return await projected_seqs(client, keys, list(expected)) == expected

    await wait_until(done, timeout_s, f"projections at {expected}")


async def projected_standings(client: aioredis.Redis, keys: Keys, game_id: str) -> dict[str, Any]:
    """The stored standings JSON of a game, parsed."""
    return json.loads(await client.hget(keys.projection(game_id), "standings"))


def offline_standings(events: list[Envelope], upto_seq: int | None = None) -> dict[str, Any]:
    """`standings(fold(events))` as the JSON-ready dict the projector stores."""
    return json.loads(standings(fold(events, upto_seq)).model_dump_json())
