"""The `EventLog` contract (`test_eventlog.py`, every test) held by the log the doors write
through: names kept outside the stored events over the hot and archive tiers
(`NamedEventLog(TieredEventLog(...))`, as `services.bootstrap` wires it with an archive), on
memory and on Redis. Each wrapper passes one `AppendRequest` on (`EventLogBase`), so the
credential, the expected head, duplicates and all-or-nothing must come through unchanged."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.adapters.memory.names import MemoryPlayerNames
from services.adapters.redis.connect import connect
from services.adapters.redis.keys import Keys
from services.adapters.redis.names import RedisPlayerNames
from services.archive.adapters.memory import MemoryArchive
from services.archive.adapters.memory_hot import MemoryHotGames
from services.archive.adapters.redis_hot import RedisHotGames
from services.archive.usecases.tiered import ArchiveReader, TieredEventLog
from services.bootstrap import memory_ports, redis_ports
from services.ports.eventlog import EventLog
from services.usecases.names import NamedEventLog
from tests.ports.conftest import SHARDS, Backend, _backend
from tests.ports.test_eventlog import *  # noqa: F403  # the whole contract, run again here


def stacked(raw: EventLog, hot: object, names: object) -> EventLog:
    """`raw` with names kept apart, over the hot tier and an (empty) archive."""
    reader = ArchiveReader(MemoryArchive())
    tiered = TieredEventLog(raw, hot, reader)  # type: ignore[arg-type]
    return NamedEventLog(tiered, names, reader, raw)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """The ports of `tests.ports.conftest.backend` with the log stacked (`stacked`)."""
    if request.param == "memory":
        one = _backend("memory", memory_ports(SHARDS))
        b = one.log.b  # type: ignore[attr-defined]
        one.log = stacked(one.log, MemoryHotGames(b), MemoryPlayerNames(b))
        yield one
        return
    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    keys = Keys(SHARDS)
    one = _backend("redis", redis_ports(client, keys), client)
    one.log = stacked(one.log, RedisHotGames(client, keys), RedisPlayerNames(client, keys))
    yield one
    await client.aclose()


async def test_append_and_append_one_store_the_start_event_without_names(backend: Backend) -> None:
    """Either way in, the stored start event holds each player's id for a name and the names
    are kept apart; read back, the events are the ones appended."""
    from services.ports.eventlog import AppendRequest
    from tests.pipeline.factory import game_log

    log = backend.log
    assert isinstance(log, NamedEventLog)
    assert log.hot is not None
    for game_id, one in (("g-append", False), ("g-one", True)):
        events = game_log(game_id, 3)
        if one:
            await log.append_one(AppendRequest(game_id, events))
        else:
            await log.append(game_id, events)
        players = events[0].payload.players  # type: ignore[attr-defined]
        kept = await log.names.names(game_id)
        assert kept == {p.player_id: p.name for p in players}
        stored = (await log.hot.read_raw(game_id))[0]
        assert all(p.name.encode() not in stored for p in players if p.name != p.player_id)
        back = await log.read(game_id)  # as appended, `recorded_at` stamped
        assert [(e.event_id, e.payload) for e in back] == [(e.event_id, e.payload) for e in events]
