"""One backend fixture, parametrised: every contract test runs against the in-memory adapters
and against the Redis adapters (the way event-sourcery's backend fixture and eventsourcing's
recorder test cases hold implementations to one suite). `-m "not redis"` keeps only memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.adapters.memory.feeds import MemoryFeedRetention, MemoryShardFeeds
from services.adapters.memory.leases import MemoryShardLeases
from services.adapters.memory.store import (
    MemoryBackend,
    MemoryChangeNotices,
    MemoryCredentials,
    MemoryDeadLetters,
    MemoryEventLog,
    MemoryProjections,
)
from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.keys import Keys
from services.bootstrap import PipelinePorts
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


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    if request.param == "memory":
        b = MemoryBackend(shards=SHARDS)
        projections = MemoryProjections(b)
        pipeline = PipelinePorts(
            MemoryShardFeeds(b),
            projections,
            projections,
            lambda owner, ttl_ms: MemoryShardLeases(b, owner, ttl_ms),
            lambda keep_s, every_s, reseed: MemoryFeedRetention(b, keep_s, every_s, reseed),
        )
        yield Backend(
            "memory",
            MemoryEventLog(b),
            MemoryCredentials(b),
            MemoryDeadLetters(b),
            projections,
            MemoryChangeNotices(b),
            pipeline,
        )
        return

    from services.adapters.redis.credentials import RedisCredentials
    from services.adapters.redis.deadletters import RedisDeadLetters
    from services.adapters.redis.eventlog import RedisEventLog
    from services.adapters.redis.feeds import RedisShardFeeds
    from services.adapters.redis.lease import ShardLeases
    from services.adapters.redis.notices import RedisChangeNotices
    from services.adapters.redis.projections import RedisProjections
    from services.adapters.redis.retention import FeedRetention

    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    keys = Keys(SHARDS)
    projections = RedisProjections(client, keys)
    pipeline = PipelinePorts(
        RedisShardFeeds(client, keys),
        projections,
        projections,
        lambda owner, ttl_ms: ShardLeases(client, keys, owner, ttl_ms),
        lambda keep_s, every_s, reseed: FeedRetention(client, keys, keep_s, every_s, reseed),
    )
    yield Backend(
        "redis",
        RedisEventLog(client, keys),
        RedisCredentials(client, keys),
        RedisDeadLetters(client, keys),
        projections,
        RedisChangeNotices(client, keys),
        pipeline,
        client,
    )
    await client.aclose()
