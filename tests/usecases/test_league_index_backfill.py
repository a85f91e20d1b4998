"""The tournament -> leagues index backfilled for tournaments a league added before the index
was kept (`services.leagues.usecases.index_backfill`): after the backfill the tournament names
its league, a second run changes nothing, and a league adding nothing adds no entry; on Redis,
an ingest process's start runs it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from contracts.league import LeagueCreated
from services.bootstrap import Roles, build, memory_ports, roles_lifespan, use_cases
from services.leagues.usecases.index_backfill import backfill_league_index
from services.platform.settings import ServiceSettings
from services.usecases.authorize import digest
from tests.domain.league.test_league import CUP, league_event
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH
from tests.web.test_league_page import TITLE, _league


def test_a_tournament_added_before_the_index_names_its_league_after_the_backfill() -> None:
    cases = use_cases(memory_ports(4), ServiceSettings())
    leagues = cases.leagues
    index = leagues.index
    assert index is not None
    leagues.index = None  # as a deployment before the index: the addition writes no entry
    with TestClient(league_app(cases)) as http:
        _league(http)
        other = {"league_id": "empty", "title": "Nothing yet", "game": "penumbra"}
        assert http.post("/leagues", json=other, headers=AUTH).status_code == 201
        leagues.index = index
        assert http.get("/tournaments/cup/leagues").json()["leagues"] == []
        assert http.portal.call(backfill_league_index, leagues.log, index) == 1  # type: ignore[union-attr]
        held = http.get("/tournaments/cup/leagues").json()["leagues"]
        assert held == [{"league_id": "club", "title": TITLE, "page": "/leagues/club/page"}]
        assert http.portal.call(backfill_league_index, leagues.log, index) == 1  # type: ignore[union-attr]
        assert http.get("/tournaments/cup/leagues").json()["leagues"] == held


@pytest.mark.redis
async def test_an_ingest_start_backfills_the_index_on_redis(clean_redis_url: str) -> None:
    # A league stream stored before the index existed: created, then the tournament added,
    # with no index entry written. An ingest process's start indexes it.
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4)
    old = build(settings)
    try:
        events = [league_event(1, LeagueCreated(title="Club", game="penumbra"), "old-club")]
        events.append(league_event(2, CUP, "old-club"))
        await old.ports.leagues.append("old-club", events, digest("organiser-token-" + "x" * 24))
        index = old.cases.leagues.index
        assert index is not None
        assert await index.leagues("cup") == []
        async with roles_lifespan(build(settings), Roles(inbox=False, projector=False)):
            assert await index.leagues("cup") == ["old-club"]
    finally:
        await old.client.aclose()
