"""Durable acknowledgements (`SCORELEDGER_APPEND_REPLICAS`) on the tournament and league logs,
as on the games': with too few replicas an append is stored but raises `ReplicasUnconfirmed`
(HTTP: 503 `append.replicas_unconfirmed`, Retry-After, a generated organiser token handed
back); a retry with the same event ids is a duplicate that waits too, and is acknowledged once
a replica holds it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis
from fastapi.testclient import TestClient

from contracts.league import LeagueCreated, LeagueEnvelope
from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.keys import Keys
from services.bootstrap import Roles, build_app
from services.leagues.adapters.redis import LEAGUE, RedisLeagueLog
from services.platform.settings import ServiceSettings
from services.ports.errors import ReplicasUnconfirmed
from services.tournaments.adapters.redis import RedisTournamentLog
from tests.domain.league.test_league import league_event
from tests.domain.tournament.stream import Stream
from tests.pipeline.test_durable_acks import attach, servers
from tests.redis_fixture import RedisServer

pytestmark = [pytest.mark.redis]
KEYS = Keys(4)
__all__ = ["servers"]  # the primary/replica fixture, shared with the games' test


def created(league_id: str = "club") -> LeagueEnvelope:
    """League `league_id`'s creating event (the same event id on every call)."""
    return league_event(1, LeagueCreated(title="Club", game="penumbra"), league_id)


@pytest.fixture
async def client(servers: tuple[RedisServer, RedisServer]) -> AsyncIterator[RedisClient]:
    """A client of the test's own primary (the session's Redis may be a cluster with
    replicas; this primary has none until a test attaches one)."""
    primary, _ = servers
    client = connect(primary.url)
    try:
        yield client
    finally:
        await client.aclose()


def waiting_logs(client: RedisClient, wait_ms: int) -> tuple[RedisTournamentLog, RedisLeagueLog]:
    """Tournament and league logs on `client` that wait up to `wait_ms` for one replica."""
    return (
        RedisTournamentLog(client, KEYS, replicas=1, wait_ms=wait_ms),
        RedisLeagueLog(client, KEYS, replicas=1, wait_ms=wait_ms),
    )


async def test_no_replica_stores_but_refuses_and_the_retry_is_a_duplicate_that_waits(
    client: RedisClient,
) -> None:
    tournaments, leagues = waiting_logs(client, wait_ms=50)
    s = Stream("cup").create().register("a")
    for _ in range(2):  # the first stores, the retry finds duplicates: both wait, both refused
        with pytest.raises(ReplicasUnconfirmed) as unconfirmed:
            await tournaments.append("cup", s.events, credential="d1")
        assert (unconfirmed.value.wanted, unconfirmed.value.acked) == (1, 0)
        with pytest.raises(ReplicasUnconfirmed):
            await leagues.append("club", [created()], credential="d1")
    assert await tournaments.version("cup") == 2  # stored once, not acknowledged
    assert await leagues.version("club") == 1
    # without the setting the same events are answered as duplicates, no wait
    plain = await RedisTournamentLog(client, KEYS).append("cup", s.events, credential="d1")
    assert [(e.seq, e.duplicate) for e in plain.events] == [(1, True), (2, True)]
    league = await RedisLeagueLog(client, KEYS).append("club", [created()], credential="d1")
    assert [(e.seq, e.duplicate) for e in league.events] == [(1, True)]


async def test_the_retry_is_acknowledged_once_a_replica_holds_it(
    servers: tuple[RedisServer, RedisServer], client: RedisClient
) -> None:
    primary, replica = servers
    tournaments, leagues = waiting_logs(client, wait_ms=100)
    s = Stream("cup").create().register("a", "b")
    with pytest.raises(ReplicasUnconfirmed):
        await tournaments.append("cup", s.events[:2], credential="d1")
    with pytest.raises(ReplicasUnconfirmed):
        await leagues.append("club", [created()], credential="d1")
    attach(primary, replica)
    again = await tournaments.append("cup", s.events[:2], credential="d1")
    assert [(e.seq, e.duplicate) for e in again.events] == [(1, True), (2, True)]
    fresh = await tournaments.append("cup", s.events[2:], credential="d1")
    assert [(e.seq, e.duplicate) for e in fresh.events] == [(3, False)]
    league = await leagues.append("club", [created()], credential="d1")
    assert [(e.seq, e.duplicate) for e in league.events] == [(1, True)]
    on_replica = redis.Redis(port=replica.port)  # WAIT returned: the replica has them
    assert on_replica.xlen(KEYS.tournament_stream("cup")) == 3
    assert on_replica.xlen(KEYS.tournament_stream(LEAGUE + "club")) == 1
    on_replica.close()


def test_http_creates_answer_503_with_the_generated_organiser_token(
    servers: tuple[RedisServer, RedisServer],
) -> None:
    primary, _ = servers  # no replica attached: WAIT 1 cannot be confirmed
    settings = ServiceSettings(
        redis_url=primary.url, shards=4, append_replicas=1, append_wait_ms=50
    )
    app = build_app(Roles(inbox=False, projector=False, query=False), settings)
    cup = {"tournament_id": "cup", "title": "Cup", "game": "trickerion", "rounds": 2}
    club = {"league_id": "club", "title": "Club", "game": "penumbra"}
    tokens: dict[str, str] = {}
    with TestClient(app) as http:
        for url, body in (("/tournaments", cup), ("/leagues", club)):
            answer = http.post(url, json=body)
            assert answer.status_code == 503, answer.text
            assert answer.headers["Retry-After"] == "1"
            problem = answer.json()
            assert problem["rule"] == "append.replicas_unconfirmed"
            assert (problem["wanted"], problem["acked"]) == (1, 0)
            tokens[url] = problem["write_token"]  # the organiser token it is stored under
            assert len(tokens[url]) >= 32
            again = http.post(url, json=body)  # stored: the id is taken
            assert again.status_code == 409, again.text
        # the handed-back token authorizes the next write, which is refused the same way
        auth = {"Authorization": f"Bearer {tokens['/tournaments']}"}
        player = {"player_id": "p1", "name": "P1"}
        registered = http.post("/tournaments/cup/players", json=player, headers=auth)
        assert registered.status_code == 503, registered.text
        assert registered.json()["rule"] == "append.replicas_unconfirmed"
        assert "write_token" not in registered.json()  # not a creation
    direct = redis.Redis.from_url(primary.url)
    assert direct.xlen(KEYS.tournament_stream("cup")) == 2
    assert direct.xlen(KEYS.tournament_stream(LEAGUE + "club")) == 1
    direct.close()


async def test_a_creation_stored_without_acknowledgement_is_listed(client: RedisClient) -> None:
    """The creation that raised `ReplicasUnconfirmed` is stored: it is in its kind's list
    (`GET /tournaments`) like any other, also after its retry was answered from the stream."""
    tournaments, leagues = waiting_logs(client, wait_ms=50)
    with pytest.raises(ReplicasUnconfirmed):
        await tournaments.append("cup", Stream("cup").create().events, credential="d1")
    with pytest.raises(ReplicasUnconfirmed):
        await leagues.append("club", [created()], credential="d1")
    assert (await tournaments.version("cup"), await leagues.version("club")) == (1, 1)
    assert await tournaments.streams(10) == ["cup"]
    assert await leagues.streams(10) == ["club"]
