"""The tournament -> leagues index backfilled for tournaments a league added before the index
was kept (`services.usecases.league_index_backfill`): after the backfill the tournament names
its league, a second run changes nothing, and a league adding nothing adds no entry."""

from __future__ import annotations

from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.league_index_backfill import backfill_league_index
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
