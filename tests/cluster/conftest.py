"""Fixtures of the cluster suite: every test here runs on a single node and on a local Redis
Cluster (3 primaries), both started for the session from `redis-server`; failover tests start
their own 3 + 3 cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient, connect
from tests.redis_cluster import LocalCluster
from tests.redis_fixture import RedisServer, flush_all


@pytest.fixture(scope="session")
def single_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A dedicated single-node redis-server for this suite."""
    with RedisServer(tmp_path_factory.mktemp("single")) as server:
        yield server.url


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local 3-primary Redis Cluster (`redis+cluster://...`)."""
    with LocalCluster(tmp_path_factory.mktemp("cluster"), masters=3) as cluster:
        yield cluster.url


@pytest.fixture(params=["single", "cluster"])
def any_url(request: pytest.FixtureRequest) -> str:
    """The single node's URL, then the cluster's: emptied before the test."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    flush_all(url)
    return url


@pytest.fixture
async def client(any_url: str) -> AsyncIterator[RedisClient]:
    """`connect(any_url)`, closed after the test."""
    redis_client = connect(any_url)
    try:
        yield redis_client
    finally:
        await redis_client.aclose()


@pytest.fixture
def ha_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A dedicated 3 primaries + 3 replicas cluster that a test may kill nodes of."""
    with LocalCluster(tmp_path, masters=3, replicas=1) as cluster:
        yield cluster


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A dedicated 3-primary cluster that a test may reshard."""
    with LocalCluster(tmp_path, masters=3) as cluster:
        yield cluster
