"""Composition root of the query service: `create_app(settings) -> FastAPI`.

Builds the Redis client (in the lifespan), the reader, the metrics registry and the routes:
the query endpoints (`services.query.routes`), `/healthz` (process only), `/readyz` (Redis PING
and projector lag under `max_lag_events`) and `/metrics` (Prometheus text).
Source: research/anchors.md §4.2 (health, metrics); research/tech.md §1.9 (FastAPI).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from redis.exceptions import RedisError

from services.adapters.redis.projections import GameNotFound, QueryReader
from services.keys import Keys
from services.query.errors import QueryError, query_error_handler
from services.query.metrics import MetricsMiddleware, QueryMetrics
from services.query.models import Health
from services.query.routes import router as query_router
from services.settings import QuerySettings

Lifespan = Any  # an async context manager factory taking the app, as FastAPI's `lifespan`


def create_app(
    settings: QuerySettings,
    *,
    routers: Sequence[APIRouter] = (),
    lifespans: Sequence[Lifespan] = (),
    query: bool = True,
    lag_check: bool = True,
) -> FastAPI:
    """The query service app.

    Args:
        settings: Redis URL, shard count, `max_lag_events` for `/readyz`.
        routers: more routers to mount (the ingest router when ingest runs in this process).
        lifespans: more lifespans entered after the Redis client exists (e.g. the projector).
        query: False leaves out the query endpoints (an ingest-only process keeps health/metrics).
        lag_check: False makes `/readyz` check Redis only (ingest must not stop taking writes
            because the projector lags).
    """
    metrics = QueryMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        client = aioredis.Redis.from_url(settings.redis_url)
        app.state.redis = client
        app.state.reader = QueryReader(client, Keys(settings.shards))
        try:
            async with AsyncExitStack() as stack:
                for extra in lifespans:
                    await stack.enter_async_context(extra(app))
                yield
        finally:
            await client.aclose()

    app = FastAPI(
        title="scoreledger",
        version="0.1.0",
        lifespan=lifespan,
        description="Live, event-sourced scoring for Trickerion and Penumbra.",
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_exception_handler(QueryError, query_error_handler)
    app.add_exception_handler(GameNotFound, query_error_handler)
    if query:
        app.include_router(query_router)
    for router in routers:
        app.include_router(router)
    app.include_router(_health_router(settings, metrics, lag_check))
    return app


def _health_router(settings: QuerySettings, metrics: QueryMetrics, lag_check: bool) -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=Health)
    async def healthz() -> Health:
        """Liveness: the process answers (no dependency is checked)."""
        return Health(status="ok")

    @router.get("/readyz", response_model=Health, responses={503: {"model": Health}})
    async def readyz(request: Request) -> Any:
        """Readiness: Redis answers PING and the projector's lag is at most `max_lag_events`."""
        reader: QueryReader = request.app.state.reader
        try:
            await reader.client.ping()
            if not lag_check:
                return Health(status="ok", checks={"redis": "ok"})
            lag = await reader.lag_events(settings.max_lag_events)
        except (RedisError, OSError) as error:
            body = Health(status="unavailable", checks={"redis": f"unreachable: {error}"})
            return JSONResponse(body.model_dump(), status_code=503)
        metrics.lag.set(lag)
        ok = lag <= settings.max_lag_events
        body = Health(
            status="ok" if ok else "unavailable",
            checks={
                "redis": "ok",
                "projection_lag_events": lag,
                "max_lag_events": settings.max_lag_events,
            },
        )
        return JSONResponse(body.model_dump(), status_code=200 if ok else 503)

    @router.get("/metrics", include_in_schema=False)
    async def prometheus(request: Request) -> Response:
        """Prometheus text: this app's registry (HTTP, `projection_lag_events`, refreshed first if
        Redis answers) and the process-wide default registry (write-side metrics of
        `services.metrics` when ingest or the projector run in this process)."""
        reader: QueryReader = request.app.state.reader
        # Scraping must work while Redis is down; the gauge then keeps its last value.
        with contextlib.suppress(RedisError, OSError):
            metrics.lag.set(await reader.lag_events(settings.max_lag_events))
        body = generate_latest(REGISTRY) + generate_latest(metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return router
