"""The probes every process serves, whatever its roles: `/healthz` (process only), `/readyz`
(Redis PING and, where the projector matters, its lag under `max_lag_events` and the games it
holds) and `/metrics` (Prometheus text). The app itself is assembled in `services.bootstrap`.
Source: docs/decisions/0018-observability-at-the-edges.md (health, metrics); docs/decisions/0012-hot-reads-and-off-loop-replays.md (FastAPI).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from services.doors.query.metrics import QueryMetrics
from services.platform.metrics import HELD_GAMES
from services.ports.errors import StoreError
from services.ports.projections import HeldGame
from services.usecases.readmodels.reads import ReadModels
from services.usecases.readmodels.shapes import Health

PING_TIMEOUT_S = 2.0
"""`/readyz` answers 503 when Redis has not answered PING within this (seconds)."""

Ping = Callable[[], Awaitable[Any]]
"""Checks the storage answers (raises the ports' `StoreError` / `OSError` when it does not)."""

HeldReader = Callable[[int], Awaitable[tuple[int, list[HeldGame]]]]
"""`Projections.held`: how many games the projector holds, and the first N of them."""

HELD_LISTED = 50
"""Most held games `/readyz` lists (all are counted)."""


async def _held_checks(held: HeldReader) -> dict[str, Any]:
    """`held_games` (count) and `held` (game id, seq, rule) for `/readyz`; sets the gauge."""
    count, games = await held(HELD_LISTED)
    HELD_GAMES.set(count)
    listed = [{"game_id": h.game_id, "seq": h.seq, "rule": h.rule} for h in games]
    return {"held_games": count, "held": listed}


def health_router(
    ping: Ping,
    reads: ReadModels,
    metrics: QueryMetrics,
    max_lag_events: int,
    lag_check: bool,
    held: HeldReader | None = None,
) -> APIRouter:
    """`/healthz`, `/readyz` and `/metrics`.

    Args:
        lag_check: False makes `/readyz` check Redis only (ingest must not stop taking writes
            because the projector lags).
        held: where the held games are read (with `lag_check`): `/readyz` stays 200 while
            games are held (a restart cannot release them; taking the pod out of service would
            stop every other game) but says `degraded` and lists them; the gauge
            `scoreledger_held_games` counts them.
    """
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=Health)
    async def healthz() -> Health:
        """Liveness: the process answers (no dependency is checked)."""
        return Health(status="ok")

    @router.get("/readyz", response_model=Health, responses={503: {"model": Health}})
    async def readyz() -> Any:
        """Readiness: Redis answers PING and the projector's lag is at most `max_lag_events`."""
        try:
            async with asyncio.timeout(PING_TIMEOUT_S):  # the client retries a dead Redis ~10 s
                await ping()
            if not lag_check:
                return Health(status="ok", checks={"redis": "ok"})
            lag = await reads.lag(max_lag_events)
            holds = await _held_checks(held) if held is not None else {}
        except (StoreError, OSError, TimeoutError) as error:
            reason = str(error) or f"no answer in {PING_TIMEOUT_S} s"
            body = Health(status="unavailable", checks={"redis": f"unreachable: {reason}"})
            return JSONResponse(body.model_dump(), status_code=503)
        metrics.lag.set(lag)
        ok = lag <= max_lag_events
        body = Health(
            status=("degraded" if holds.get("held_games") else "ok") if ok else "unavailable",
            checks={
                "redis": "ok",
                "projection_lag_events": lag,
                "max_lag_events": max_lag_events,
                **holds,
            },
        )
        return JSONResponse(body.model_dump(), status_code=200 if ok else 503)

    @router.get("/metrics", include_in_schema=False)
    async def prometheus() -> Response:
        """Prometheus text: this app's registry (HTTP, `scoreledger_projection_lag_events`, refreshed first if
        Redis answers) and the process-wide default registry (write-side metrics of
        `services.platform.metrics` when ingest or the projector run in this process)."""
        # Scraping must work while Redis is down; the gauge then keeps its last value.
        with contextlib.suppress(StoreError, OSError, TimeoutError):
            async with asyncio.timeout(PING_TIMEOUT_S):
                metrics.lag.set(await reads.lag(max_lag_events))
                if held is not None and lag_check:
                    await _held_checks(held)
        body = generate_latest(REGISTRY) + generate_latest(metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return router
