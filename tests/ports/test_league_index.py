"""Both `LeagueIndex` adapters held to one contract: a tournament's leagues sorted by id, an
addition repeated kept once, tournaments kept apart, [] for a tournament no league holds."""

from __future__ import annotations

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.leagues.adapters.memory_index import MemoryLeagueIndex
from services.leagues.ports.index import LeagueIndex


@pytest.fixture
def index(redis_or_memory: RedisClient | None) -> LeagueIndex:
    if redis_or_memory is None:
        return MemoryLeagueIndex()
    from services.leagues.adapters.redis_index import RedisLeagueIndex

    return RedisLeagueIndex(redis_or_memory, Keys(4))


async def test_a_tournament_names_each_league_that_added_it_once(index: LeagueIndex) -> None:
    assert await index.leagues("cup") == []
    await index.add("cup", "thursday")
    await index.add("cup", "club")
    await index.add("cup", "thursday")  # added again (a league following the tournament)
    await index.add("open", "club")
    assert await index.leagues("cup") == ["club", "thursday"]
    assert await index.leagues("open") == ["club"]
    assert await index.leagues("other") == []
