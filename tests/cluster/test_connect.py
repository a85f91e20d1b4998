"""`connect`: the one client of a process, on a single node and on a Redis Cluster."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis.asyncio as aioredis
from pydantic import SecretStr
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError, MaxConnectionsError

from services.adapters.redis.connect import (
    GatedRedisCluster,
    RedisClient,
    RedisTarget,
    connect,
    connect_from,
    parse_target,
)
from services.platform.settings import CommonSettings
from tests.redis_fixture import RedisServer


def test_parse_plain_url_keeps_it_and_the_flag() -> None:
    assert parse_target("redis://h:1/2") == RedisTarget("redis://h:1/2", False)
    assert parse_target("redis://h:1", cluster=True) == RedisTarget("redis://h:1", True)


def test_parse_cluster_url_lists_startup_nodes_and_keeps_credentials() -> None:
    target = parse_target("rediss+cluster://u:p@a:7000,b:7001/0")
    assert target == RedisTarget("rediss://u:p@a:7000", True, (("a", 7000), ("b", 7001)))


@pytest.mark.parametrize(
    ("url", "field"),
    [("redis+cluster://a:1/3", "db"), ("redis+cluster://a", "host:port"), ("redis+cluster://", "")],
)
def test_parse_bad_cluster_url_names_the_problem(url: str, field: str) -> None:
    with pytest.raises(ValueError, match="redis_url") as error:
        parse_target(url)
    assert field in str(error.value)


def test_settings_choose_the_client() -> None:
    single = connect_from(CommonSettings(redis_url="redis://127.0.0.1:1/0"))
    assert isinstance(single.connection_pool, aioredis.BlockingConnectionPool)  # type: ignore[union-attr]
    flagged = connect_from(CommonSettings(redis_url="redis://127.0.0.1:1", redis_cluster=True))
    assert isinstance(flagged, GatedRedisCluster)


async def test_bytes_replies_and_scripts(client: RedisClient) -> None:
    await client.set("k:{s1}", "v")
    assert await client.get("k:{s1}") == b"v"
    incr = client.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
    assert await incr(keys=["n:{s2}"], args=[5]) == 5


async def _blpop_many(client: RedisClient, n: int) -> list[object]:
    # each BLPOP holds a connection 0.2 s: n of them need n connections at once
    return list(await asyncio.gather(*(client.blpop([f"q:{{s{i % 16}}}"], 0.2) for i in range(n))))


async def test_more_requests_than_connections_wait(any_url: str) -> None:
    client = connect(any_url, max_connections=2, pool_timeout_s=10)
    try:
        assert await _blpop_many(client, 12) == [None] * 12
    finally:
        await client.aclose()


async def test_redis_py_default_pools_raise_instead(any_url: str) -> None:
    """The defect `connect` removes: redis-py's default pools fail past max_connections."""
    target = parse_target(any_url)
    raw: RedisClient = (
        RedisCluster.from_url(target.url, max_connections=2)
        if target.cluster
        else aioredis.Redis.from_url(target.url, max_connections=2)
    )
    try:
        with pytest.raises(MaxConnectionsError):
            await _blpop_many(raw, 12)
    finally:
        await raw.aclose()


async def test_no_free_connection_within_the_timeout_is_a_connection_error(any_url: str) -> None:
    client = connect(any_url, max_connections=1, pool_timeout_s=0.2)
    try:

        async def hold_the_connection() -> object:
            return await client.blpop(["hold:{s1}"], 2)

        hold = asyncio.create_task(hold_the_connection())
        await asyncio.sleep(0.3)  # let it take the only connection
        with pytest.raises(ConnectionError) as error:
            await client.get("k:{s1}")
        assert not isinstance(error.value, MaxConnectionsError)
        assert await hold is None
    finally:
        await client.aclose()


@pytest.mark.redis
async def test_single_node_outage_is_retried_with_backoff(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, appendonly=True).start()
    client = connect(server.url, retries=12)
    try:
        await client.set("k", "v")
        server.stop(kill=True)  # the pooled connection is dead and the port refuses

        def start_later() -> None:
            time.sleep(0.5)
            server.start()

        back = asyncio.create_task(asyncio.to_thread(start_later))
        assert await client.get("k") == b"v"  # sent while Redis is down; answered once it is up
        await back
    finally:
        await client.aclose()
        server.stop()


async def test_concurrent_first_commands_of_fresh_clients(any_url: str) -> None:
    """redis-py 8.1's RedisCluster fails some concurrent first commands of a fresh client
    (AttributeError from a connection torn down mid-connect; 18 of 30 fresh clients with 16
    GETs each); `connect`'s client discovers the slots in one task first."""
    for _ in range(20):
        client = connect(any_url)
        try:
            replies = await asyncio.gather(*(client.get(f"k:{{s{i}}}") for i in range(16)))
            assert replies == [None] * 16
        finally:
            await client.aclose()


async def test_settings_acl_user_and_password_reach_every_connection(any_url: str) -> None:
    import redis as sync_redis

    target = parse_target(any_url)
    plain = urlsplit(target.url)
    nodes = target.nodes or ((plain.hostname or "", plain.port or 6379),)
    for host, port in nodes:  # the ACL user on every node, as deploy/users.acl.template does
        admin = sync_redis.Redis(host=host, port=port)
        admin.acl_setuser(
            "probe", enabled=True, passwords=["+pw-probe-1"], keys=["~*"], commands=["+@all"]
        )
        admin.close()
    settings = CommonSettings(
        redis_url=any_url, redis_username="probe", redis_password=SecretStr("pw-probe-1")
    )
    client = connect_from(settings)
    try:
        await client.set("k:{s1}", "v")
        assert await client.execute_command("ACL WHOAMI") in (b"probe", "probe")
    finally:
        await client.aclose()
