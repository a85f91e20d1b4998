"""One backend fixture, parametrised: every contract test runs against the in-memory adapters
and against the Redis adapters (the way event-sourcery's backend fixture and eventsourcing's
recorder test cases hold implementations to one suite). `-m "not redis"` keeps only memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.keys import Keys
from services.bootstrap import PipelinePorts, Ports, memory_ports, redis_ports
from services.ports.credentials import Credentials
from services.ports.deadletters import DeadLetters
from services.ports.eventlog import EventLog
from services.ports.notices import ChangeNotices
from services.ports.projections import Projections

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
