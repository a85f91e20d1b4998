"""A built service on one Redis node, for tests that count or order one node's commands."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.adapters.redis.connect import is_cluster
from services.bootstrap import Service, build
from services.platform.settings import ServiceSettings


async def single_node(url: str, shards: int, why: str) -> AsyncIterator[Service]:
    """The service built on `url` with `shards` shards, closed after; on a cluster the test
    is skipped, saying `why` it needs one node."""
    built = build(ServiceSettings(redis_url=url, shards=shards))
    if is_cluster(built.client):
        await built.client.aclose()
        pytest.skip(why)
    try:
        yield built
    finally:
        await built.client.aclose()
