"""Both `LeagueLog` adapters held to one suite, and each wrapped in `NamedSideLog` (names kept
apart, read back as posted): expected version, all or nothing, idempotent event ids, the
organiser's digest; on Redis a league never shares a tournament's keys."""

from __future__ import annotations

import pytest

from contracts.league import GameAdded, LeagueCreated
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.leagues.adapters.memory import MemoryLeagueLog
from services.leagues.ports.log import LeagueLog
from services.ports.errors import CredentialMismatch, VersionConflict
from tests.domain.league.test_league import GAME, league_event
from tests.ports.conftest import SideBackend, side_log


@pytest.fixture
def log(side_backend: SideBackend) -> LeagueLog:
    from services.leagues.adapters.redis import LEAGUE, RedisLeagueLog

    return side_log(
        side_backend, MemoryLeagueLog, lambda client: RedisLeagueLog(client, Keys(4)), LEAGUE
    )


async def test_a_league_stream_appends_like_a_tournaments(log: LeagueLog) -> None:
    created = league_event(1, LeagueCreated(title="Club", game="penumbra"))
    added = league_event(2, GAME)
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
async def test_on_redis_a_league_lives_under_the_tournament_keys_apart(
    redis_client: RedisClient,
) -> None:
    from services.leagues.adapters.redis import RedisLeagueLog
    from services.tournaments.adapters.redis import RedisTournamentLog

    keys = Keys(4)
    await RedisLeagueLog(redis_client, keys).append(
        "club", [league_event(1, LeagueCreated(title="Club", game="penumbra"))], credential="d1"
    )
    assert await redis_client.exists(keys.tournament_stream("@league/club")) == 1
    # A tournament of the same id sees nothing of it.
    assert await RedisTournamentLog(redis_client, keys).version("club") == 0
