"""One backend fixture, parametrised: every contract test runs against the in-memory adapters
and against the Redis adapters (the way event-sourcery's backend fixture and eventsourcing's
recorder test cases hold implementations to one suite). `-m "not redis"` keeps only memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.adapters.memory.store import (
    MemoryBackend,
    MemoryChangeNotices,
    MemoryCredentials,
    MemoryDeadLetters,
    MemoryEventLog,
    MemoryProjections,
)
from services.adapters.redis.connect import connect
from services.keys import Keys
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


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    if request.param == "memory":
        b = MemoryBackend(shards=SHARDS)
        yield Backend(
            "memory",
            MemoryEventLog(b),
            MemoryCredentials(b),
            MemoryDeadLetters(b),
            MemoryProjections(b),
            MemoryChangeNotices(b),
        )
        return

    from services.adapters.redis.credentials import RedisCredentials
    from services.adapters.redis.deadletters import RedisDeadLetters
    from services.adapters.redis.eventlog import RedisEventLog
    from services.adapters.redis.notices import RedisChangeNotices
    from services.adapters.redis.projections import RedisProjections

    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    keys = Keys(SHARDS)
    yield Backend(
        "redis",
        RedisEventLog(client, keys),
        RedisCredentials(client, keys),
        RedisDeadLetters(client, keys),
        RedisProjections(client, keys),
        RedisChangeNotices(client, keys),
    )
    await client.aclose()
