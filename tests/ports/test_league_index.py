"""Both `LeagueIndex` adapters held to one contract: a tournament's leagues sorted by id, an
addition repeated kept once, tournaments kept apart, [] for a tournament no league holds."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.keys import Keys
from services.leagues.adapters.memory_index import MemoryLeagueIndex
from services.leagues.ports.index import LeagueIndex


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def index(request: pytest.FixtureRequest) -> AsyncIterator[LeagueIndex]:
    if request.param == "memory":
        yield MemoryLeagueIndex()
        return
    from services.leagues.adapters.redis_index import RedisLeagueIndex

    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    yield RedisLeagueIndex(client, Keys(4))
    await client.aclose()


async def test_a_tournament_names_each_league_that_added_it_once(index: LeagueIndex) -> None:
    assert await index.leagues("cup") == []
    await index.add("cup", "thursday")
    await index.add("cup", "club")
    await index.add("cup", "thursday")  # added again (a league following the tournament)
    await index.add("open", "club")
    assert await index.leagues("cup") == ["club", "thursday"]
    assert await index.leagues("open") == ["club"]
    assert await index.leagues("other") == []
