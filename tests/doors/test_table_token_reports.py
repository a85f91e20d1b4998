"""A table reports from its players' phones with its own credential: the write token of the
table's game (handed to the table in its report link). That token reports or confirms its own
table's result, and nothing else: another table, an approval or a dispute, seating, all
refused naming the rule. On the memory adapters.
Source: docs/tournaments-in-the-browser.md ("Players report from their phones")."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.doors.test_tournaments_http import AUTH, memory_app, problem_of

NEW = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def seated(http: TestClient) -> list[dict[str, Any]]:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    for i in range(1, 9):
        body = {"player_id": f"p{i}", "name": f"P{i}"}
        assert http.post("/tournaments/cup/players", json=body, headers=AUTH).is_success
    answer = http.post("/tournaments/cup/rounds", headers=AUTH)
    assert answer.status_code == 201, answer.text
    tables: list[dict[str, Any]] = answer.json()["tables"]
    assert all(t["game_token"] for t in tables)
    return tables


def report(players: list[str]) -> dict[str, Any]:
    results = [{"player_id": p, "place": i, "score": 40 - i} for i, p in enumerate(players, 1)]
    return {"action": "report", "round": 1, "results": results, "by": players[0]}


def test_a_table_token_reports_and_confirms_its_own_table_only() -> None:
    with TestClient(memory_app()) as http:
        one, two = seated(http)
        url1, url2 = "/tournaments/cup/tables/1/result", "/tournaments/cup/tables/2/result"
        token = bearer(one["game_token"])
        problem_of(
            http.post(url2, json=report(two["players"]), headers=token),
            403,
            "auth.table_token_other_table",
        )
        assert http.post(url1, json=report(one["players"]), headers=token).status_code == 200
        confirm = {"action": "confirm", "round": 1, "player_id": one["players"][1]}
        assert http.post(url1, json=confirm, headers=token).status_code == 200
        table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
        assert table["status"] == "reported"
        assert table["confirmed"] == [one["players"][1]]
        for action in (
            {"action": "approve", "round": 1},
            {"action": "dispute", "round": 1, "reason": "no"},
        ):
            problem_of(http.post(url1, json=action, headers=token), 403, "auth.table_reports_only")
        problem_of(http.post("/tournaments/cup/rounds", headers=token), 403, "auth.token_rejected")
        # the organiser still approves
        approve = {"action": "approve", "round": 1}
        assert http.post(url1, json=approve, headers=AUTH).status_code == 200
