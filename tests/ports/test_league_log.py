"""Both `LeagueLog` adapters held to one suite, and each wrapped in `NamedSideLog` (names kept
apart, read back as posted): expected version, all or nothing, idempotent event ids, the
organiser's digest; on Redis a league never shares a tournament's keys."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from contracts.envelope import Payload
from contracts.league import GameAdded, LeagueCreated, LeagueEnvelope, parse_league_event
from services.adapters.memory.names import MemorySideNames
from services.adapters.redis.connect import connect
from services.adapters.redis.keys import Keys
from services.leagues.adapters.memory import MemoryLeagueLog
from services.leagues.ports.log import LeagueLog
from services.ports.errors import CredentialMismatch, VersionConflict
from services.usecases.side_names import NamedSideLog
from tests.domain.league.test_league import GAME


def _event(seq: int, payload: Payload, league_id: str = "club") -> LeagueEnvelope:
    raw: dict[str, Any] = {
        "event_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{league_id}/{seq}")),
        "league_id": league_id,
        "seq": seq,
        "type": payload.TYPE,
        "schema_version": 1,
        "occurred_at": "2026-12-01T10:00:00Z",
        "actor": "organiser",
        "payload": payload.model_dump(mode="json"),
    }
    return parse_league_event(raw)


@pytest.fixture(
    params=[
        "memory",
        "memory-named",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("redis-named", marks=pytest.mark.redis),
    ]
)
async def log(request: pytest.FixtureRequest) -> AsyncIterator[LeagueLog]:
    if request.param.startswith("memory"):
        memory = MemoryLeagueLog()
        named = request.param == "memory-named"
        yield NamedSideLog(memory, MemorySideNames()) if named else memory
        return
    from services.adapters.redis.names import RedisSideNames
    from services.leagues.adapters.redis import LEAGUE, RedisLeagueLog

    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    redis = RedisLeagueLog(client, Keys(4))
    named = request.param == "redis-named"
    yield NamedSideLog(redis, RedisSideNames(client, Keys(4), LEAGUE)) if named else redis
    await client.aclose()


async def test_a_league_stream_appends_like_a_tournaments(log: LeagueLog) -> None:
    created = _event(1, LeagueCreated(title="Club", game="penumbra"))
    added = _event(2, GAME)
    assert await log.version("club") == 0
    assert (await log.append("club", [created], credential="d1")).version == 1
    assert await log.digest("club") == "d1"
    with pytest.raises(CredentialMismatch):
        await log.append("club", [added], credential="d2")
    with pytest.raises(VersionConflict):
        await log.append("club", [added.model_copy(update={"seq": 5})], credential="d1")
    result = await log.append("club", [created, added], credential="d1")
    assert [(e.seq, e.duplicate) for e in result.events] == [(1, True), (2, False)]
    read = await log.read("club")
    assert [e.type for e in read] == ["league.created", "league.game_added"]
    assert isinstance(read[1].payload, GameAdded)
    assert read[1].payload.results == GAME.results
    assert read[1].payload.players == GAME.players  # names read back as added
    with pytest.raises(ValueError, match="league_id"):
        await log.append("other", [created])


@pytest.mark.redis
async def test_on_redis_a_league_lives_under_the_tournament_keys_apart(redis_url: str) -> None:
    from services.leagues.adapters.redis import RedisLeagueLog
    from services.tournaments.adapters.redis import RedisTournamentLog

    client = connect(redis_url)
    await client.flushdb()
    try:
        keys = Keys(4)
        await RedisLeagueLog(client, keys).append(
            "club", [_event(1, LeagueCreated(title="Club", game="penumbra"))], credential="d1"
        )
        assert await client.exists(keys.tournament_stream("@league/club")) == 1
        # A tournament of the same id sees nothing of it.
        assert await RedisTournamentLog(client, keys).version("club") == 0
    finally:
        await client.aclose()
