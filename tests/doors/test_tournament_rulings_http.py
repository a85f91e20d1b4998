"""A judge's ruling stands over HTTP (docs/tournament-rules.md, "A judge's ruling stands"):
report, a ruling with `results`, a dispute and a plain approval leave the ruling in force."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.doors.test_tournaments_http import AUTH, memory_app, problem_of

URL = "/tournaments/cup/tables/1/result"


@pytest.fixture
def http() -> Iterator[TestClient]:
    with TestClient(memory_app()) as client:
        yield client


def lines(*order: str) -> list[dict[str, Any]]:
    return [{"player_id": p, "place": i, "score": 50 - 10 * i} for i, p in enumerate(order, 1)]


def four_player_cup(http: TestClient) -> None:
    new = {"tournament_id": "cup", "title": "Cup", "game": "trickerion", "rounds": 1}
    assert http.post("/tournaments", json=new, headers=AUTH).status_code == 201
    for pid in ("ann", "bob", "cat", "dan"):
        body = {"player_id": pid, "name": pid.title()}
        assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
    assert http.post("/tournaments/cup/rounds", headers=AUTH).status_code == 201


def act(http: TestClient, **body: Any) -> None:
    response = http.post(URL, json={"round": 1, **body}, headers=AUTH)
    assert response.status_code == 200, response.text


def order(http: TestClient) -> list[str]:
    return [line["player_id"] for line in http.get("/tournaments/cup/standings").json()["players"]]


def test_a_dispute_and_a_plain_approval_confirm_the_ruling_not_the_report(
    http: TestClient,
) -> None:
    four_player_cup(http)
    act(http, action="report", results=lines("ann", "bob", "cat", "dan"), by="ann")
    act(http, action="approve", by="judge", results=lines("dan", "cat", "bob", "ann"))
    assert order(http) == ["dan", "cat", "bob", "ann"]
    act(http, action="dispute", by="ann", reason="I won")
    assert http.get("/tournaments/cup/standings").json()["held"] == [
        {"round": 1, "table": 1, "status": "disputed"}
    ]
    act(http, action="approve", by="judge")
    assert order(http) == ["dan", "cat", "bob", "ann"]
    standings = http.get("/tournaments/cup/standings").json()
    # placement 7/5/3/1: dan's 1st place by the ruling
    assert [line["points"]["value"] for line in standings["players"]] == [7, 5, 3, 1]
    csv_rows = http.get("/tournaments/cup/standings.csv").text.splitlines()
    assert "dan" in csv_rows[1]
    act(http, action="dispute", by="bob", reason="recount")
    again = {"round": 1, "action": "report", "results": lines("ann", "bob", "cat", "dan")}
    refused = problem_of(http.post(URL, json=again, headers=AUTH), 422, "tournament.ruling_stands")
    assert refused["field"] == "payload.results"
    act(http, action="approve", by="judge")
    assert order(http) == ["dan", "cat", "bob", "ann"]
    table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
    assert [line["player_id"] for line in table["approved"]] == ["dan", "cat", "bob", "ann"]
    assert [(h["kind"], h["by"]) for h in table["history"]] == [
        ("reported", "ann"),
        ("ruled", "judge"),
        ("disputed", "ann"),
        ("approved", "judge"),
        ("disputed", "bob"),
        ("approved", "judge"),
    ]
