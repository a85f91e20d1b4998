"""One backend fixture, parametrised: every contract test runs against the in-memory adapters
and against the Redis adapters (the way event-sourcery's backend fixture and eventsourcing's
recorder test cases hold implementations to one suite). `-m "not redis"` keeps only memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from services.adapters.memory.names import MemorySideNames
from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.keys import Keys
from services.bootstrap import PipelinePorts, Ports, memory_ports, redis_ports
from services.ports.credentials import Credentials
from services.ports.deadletters import DeadLetters
from services.ports.eventlog import EventLog
from services.ports.names import SideNames
from services.ports.notices import ChangeNotices
from services.ports.projections import Projections
from services.ports.sidelog import E, SideLog
from services.usecases.side_names import NamedSideLog

SHARDS = 4


@dataclass
class Backend:
    """The ports of one backend, sharing its state."""

    name: str
    log: EventLog
    credentials: Credentials
    letters: DeadLetters
    projections: Projections
    notices: ChangeNotices
    pipeline: PipelinePorts
    """The feeds, leases (per owner), feed trimming and fenced projections (`projections`)."""
    client: RedisClient | None = None


def _backend(name: str, ports: Ports, client: RedisClient | None = None) -> Backend:
    """The ports under contract of `ports`, as the composition root wires them."""
    assert ports.pipeline is not None
    return Backend(
        name,
        ports.log,
        ports.credentials,
        ports.letters,
        ports.projections,
        ports.notices,
        ports.pipeline,
        client,
    )


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    if request.param == "memory":
        yield _backend("memory", memory_ports(SHARDS))
        return
    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    yield _backend("redis", redis_ports(client, Keys(SHARDS)), client)
    await client.aclose()


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def redis_or_memory(request: pytest.FixtureRequest) -> AsyncIterator[RedisClient | None]:
    """`None` where the suite holds the in-memory adapter to its contract; on Redis, a client
    on a flushed database (closed after the test) for the Redis adapter."""
    if request.param == "memory":
        yield None
        return
    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    yield client
    await client.aclose()


@dataclass(frozen=True)
class SideBackend:
    """Where a side log under contract runs: `client` as `redis_or_memory` gives it, `named`
    when the adapter is wrapped in `NamedSideLog` (names kept apart from the stored events)."""

    client: RedisClient | None
    named: bool


@pytest.fixture(
    params=[
        "memory",
        "memory-named",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("redis-named", marks=pytest.mark.redis),
    ]
)
async def side_backend(request: pytest.FixtureRequest) -> AsyncIterator[SideBackend]:
    """Each side-log adapter alone and wrapped in `NamedSideLog`, in memory and on Redis."""
    named = request.param.endswith("-named")
    if request.param.startswith("memory"):
        yield SideBackend(None, named)
        return
    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    yield SideBackend(client, named)
    await client.aclose()


def side_log(
    backend: SideBackend,
    memory: Callable[[], SideLog[E]],
    redis: Callable[[RedisClient], SideLog[E]],
    names_prefix: str = "",
) -> SideLog[E]:
    """The adapter `backend` asks for (`memory()` or `redis(client)`), wrapped in `NamedSideLog`
    with the same backend's kept names (under `names_prefix` on Redis) when `backend.named`."""
    from services.adapters.redis.names import RedisSideNames

    names: SideNames
    if backend.client is None:
        inner, names = memory(), MemorySideNames()
    else:
        inner = redis(backend.client)
        names = RedisSideNames(backend.client, Keys(SHARDS), names_prefix)
    return NamedSideLog(inner, names) if backend.named else inner
