"""A tournament's end: `GET /tournaments/{id}` says `status` (`upcoming` before round 1 is
seated, `live` while a round is open or rounds remain, `finished` once the last round's
tables are all approved) and, when finished, the `winner` (first place of the standings).
On the memory adapters. Source: docs/tournaments-in-the-browser.md ("An end")."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.doors.test_tournaments_http import AUTH, memory_app

NEW = {"tournament_id": "cup", "title": "Cup", "game": "trickerion", "rounds": 2}
PLAYERS = [f"p{i:02d}" for i in range(1, 9)]  # 8 players: two tables of 4 each round


def champion_first(players: list[str]) -> list[dict[str, object]]:
    """p03 first wherever seated, the others in seat order after."""
    order = sorted(players, key=lambda p: p != "p03")
    return [{"player_id": p, "place": i, "score": 50 - i} for i, p in enumerate(order, 1)]


def decide(http: TestClient, round_: int, table: int, players: list[str]) -> None:
    url = f"/tournaments/cup/tables/{table}/result"
    report = {"action": "report", "round": round_, "results": champion_first(players)}
    assert http.post(url, json=report, headers=AUTH).status_code == 200
    approve = {"action": "approve", "round": round_, "by": "judge"}
    assert http.post(url, json=approve, headers=AUTH).status_code == 200


def test_status_goes_upcoming_live_finished_with_the_winner() -> None:
    with TestClient(memory_app()) as http:
        assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
        for n, pid in enumerate(PLAYERS, 1):
            body = {"player_id": pid, "name": f"Player {n}"}
            assert http.post("/tournaments/cup/players", json=body, headers=AUTH).is_success
        info = http.get("/tournaments/cup").json()
        assert (info["status"], info["winner"]) == ("upcoming", None)
        for round_ in (1, 2):
            seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()["tables"]
            assert [len(t["players"]) for t in seated] == [4, 4]
            decide(http, round_, 1, seated[0]["players"])
            # one table of the round still open: live, no winner yet
            info = http.get("/tournaments/cup").json()
            assert (info["status"], info["winner"]) == ("live", None)
            decide(http, round_, 2, seated[1]["players"])
        info = http.get("/tournaments/cup").json()
        assert info["status"] == "finished"
        # p03 won both tables: 7 + 7 = 14 placement points; anyone else at most 7 + 5 = 12
        assert info["winner"] == {"player_id": "p03", "name": "Player 3", "points": 14}


def test_after_round_one_of_two_closed_it_is_still_live() -> None:
    with TestClient(memory_app()) as http:
        assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
        for pid in PLAYERS[:4]:
            body = {"player_id": pid, "name": pid}
            assert http.post("/tournaments/cup/players", json=body, headers=AUTH).is_success
        seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()["tables"]
        decide(http, 1, 1, seated[0]["players"])
        info = http.get("/tournaments/cup").json()
        assert info["rounds"][0]["closed"] is True
        assert (info["status"], info["winner"]) == ("live", None)
