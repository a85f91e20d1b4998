"""A league that added a tournament moves when a table of that tournament is approved later:
the league takes the tournament's results again (a new `league.tournament_added`, so a replay
of the league still shows each step), and a league that never added it is left alone.
Source: docs/rules/tournaments.md#leagues."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournament_tables_http import create
from tests.doors.test_tournaments_http import AUTH


def _result(http: TestClient, table: dict[str, Any], action: str) -> None:
    body: dict[str, Any] = {"action": action, "round": 1, "by": "organiser"}
    if action == "report":
        body["results"] = [
            {"player_id": p, "place": i, "score": 30 - i} for i, p in enumerate(table["players"], 1)
        ]
    url = f"/tournaments/cup/tables/{table['table']}/result"
    answer = http.post(url, json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text


def _points(http: TestClient, league: str) -> dict[str, str]:
    lines = http.get(f"/leagues/{league}/standings").json()["players"]
    return {line["player_id"]: line["points"] for line in lines}


def test_a_league_moves_when_a_table_is_approved_after_the_tournament_was_added() -> None:
    with TestClient(league_app(use_cases(memory_ports(4), ServiceSettings()))) as http:
        create(http)
        one, two = http.post("/tournaments/cup/rounds", headers=AUTH).json()["tables"]
        _result(http, one, "report")
        _result(http, one, "approve")
        for league in ("club", "other"):
            new = {"league_id": league, "title": league, "game": "penumbra"}
            assert http.post("/leagues", json=new, headers=AUTH).status_code == 201
        added = http.post("/leagues/club/tournaments", json={"tournament_id": "cup"}, headers=AUTH)
        assert added.status_code == 200, added.text
        before = _points(http, "club")
        assert before[two["players"][0]] == "0.00"
        seq_before = http.get("/leagues/club").json()["seq"]
        _result(http, two, "report")
        _result(http, two, "approve")
        after = _points(http, "club")
        assert after[two["players"][0]] == "7.00"  # first place at a 4-player table
        assert after[one["players"][0]] == before[one["players"][0]]
        # one new addition in the league's stream; the replay before it shows the old table
        assert http.get("/leagues/club").json()["seq"] == seq_before + 1
        then = http.get(f"/leagues/club/standings?at_seq={seq_before}").json()["players"]
        assert {line["player_id"]: line["points"] for line in then} == before
        assert http.get("/leagues/other").json()["seq"] == 1  # never added the tournament
