"""Fixtures of the live ACL tests (tests/deploy/test_redis_acl*.py): a redis-server loading the
ACL file rendered from deploy/users.acl.template, and clients logged in as its users."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import redis.asyncio as aioredis

from tests.deploy.test_redis_acl import AclServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclServer]:
    """One ACL redis-server per test module, stopped after it."""
    acl = AclServer(tmp_path_factory.mktemp("acl")).start()
    try:
        yield acl
    finally:
        acl.stop()


@pytest.fixture
async def role(server: AclServer) -> AsyncIterator[Callable[[str], aioredis.Redis]]:
    """`role(user)` -> a client logged in as that ACL user; the data is flushed first."""
    admin = server.client("admin")
    await admin.flushall()
    opened = [admin]

    def open_client(user: str) -> aioredis.Redis:
        opened.append(server.client(user))
        return opened[-1]

    yield open_client
    for client in opened:
        await client.aclose()
