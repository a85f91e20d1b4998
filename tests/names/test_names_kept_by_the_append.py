"""A start event's names are kept by the append itself, once the batch passed its checks
(`AppendRequest.names`, `EventLog.keeps_names`): first writer wins, a refused batch keeps
none, an all-duplicate retry brings no forgotten name back; memory and Redis alike, through
the stacked log the doors write through. Source: docs/decisions/0014-names-outside-the-log.md."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from services.adapters.memory.names import MemoryPlayerNames
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.adapters.redis.names import RedisPlayerNames
from services.archive.adapters.memory import MemoryArchive
from services.archive.adapters.memory_hot import MemoryHotGames
from services.archive.adapters.redis_hot import RedisHotGames
from services.archive.usecases.tiered import ArchiveReader, TieredEventLog
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendRequest
from services.usecases.names import NamedEventLog
from tests.pipeline.factory import corrected, started

GAME = "names-g"


@dataclass
class Stack:
    """The stacked log and a way to mark a name forgotten as `forget` stores it ('')."""

    log: NamedEventLog
    forget: Any


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def stack(request: pytest.FixtureRequest) -> AsyncIterator[Stack]:
    """`NamedEventLog(TieredEventLog(...))` as `services.bootstrap` wires it."""
    reader = ArchiveReader(MemoryArchive())
    if request.param == "memory":
        b = MemoryBackend(shards=4)
        raw: Any = MemoryEventLog(b)
        tiered = TieredEventLog(raw, MemoryHotGames(b), reader)

        async def forget_memory(player: str) -> None:
            b.names[GAME][player] = ""

        yield Stack(NamedEventLog(tiered, MemoryPlayerNames(b), reader, raw), forget_memory)
        return
    client = connect(request.getfixturevalue("clean_redis_url"))
    keys = Keys(4)
    raw = RedisEventLog(client, keys)
    tiered = TieredEventLog(raw, RedisHotGames(client, keys), reader)

    async def forget_redis(player: str) -> None:
        await client.hset(keys.names(GAME), player, "")

    yield Stack(NamedEventLog(tiered, RedisPlayerNames(client, keys), reader, raw), forget_redis)
    await client.aclose()


async def test_refused_batches_keep_no_names(stack: Stack) -> None:
    log = stack.log
    await log.append_one(AppendRequest(GAME, [started(GAME, ("ann", "bob"))], "digest-a"))
    other = started(GAME, ("dan", "eve"))  # another creation, another event id
    with pytest.raises(VersionConflict):
        await log.append_one(AppendRequest(GAME, [other], "digest-a"))
    with pytest.raises(CredentialMismatch):
        await log.append_one(AppendRequest(GAME, [other], "digest-b"))
    assert await log.names_of(GAME) == {"ann": "Ann", "bob": "Bob"}


async def test_a_retried_creation_brings_no_forgotten_name_back(stack: Stack) -> None:
    log = stack.log
    start = started(GAME, ("ann", "bob"))
    await log.append_one(AppendRequest(GAME, [start], "digest-a"))
    await stack.forget("ann")
    again = await log.append_one(
        AppendRequest(GAME, [start, corrected(GAME, 2, "bob", 3)], "digest-a")
    )
    assert [e.duplicate for e in again.events] == [True, False]
    assert await log.names_of(GAME) == {"ann": "", "bob": "Bob"}


async def test_an_all_duplicate_batch_keeps_no_names(stack: Stack) -> None:
    """A start sent again under the stored start's event id, with other players: a
    duplicate (its original seq, nothing written), so none of its names either."""
    log = stack.log
    start = started(GAME, ("ann", "bob"))
    await log.append_one(AppendRequest(GAME, [start], "digest-a"))
    other = started(GAME, ("dan", "eve")).model_copy(update={"event_id": start.event_id})
    again = await log.append_one(AppendRequest(GAME, [other], "digest-a"))
    assert [(e.seq, e.duplicate) for e in again.events] == [(1, True)]
    assert await log.names_of(GAME) == {"ann": "Ann", "bob": "Bob"}
