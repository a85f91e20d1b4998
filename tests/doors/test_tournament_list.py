"""`GET /tournaments`: the tournaments by status, newest first (JSON; the list page for a
request that accepts HTML), and `GET /tournaments/new` the form's page, not a tournament
named `new`. On the memory adapters and on a real Redis (the assembled app).
Source: docs/tournaments-in-the-browser.md ("Tournaments in the browser")."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.bootstrap import Roles, build_app, memory_ports, use_cases
from services.doors.asgi.http_errors import install_problem_handlers
from services.platform.settings import ServiceSettings
from services.tournaments.doors.ingest import tournament_write_router
from services.tournaments.doors.query import tournament_read_router
from services.tournaments.doors.web import tournament_list_router
from tests.doors.test_tournaments_http import AUTH

JSON = {"Accept": "application/json"}


def list_app() -> FastAPI:
    cases = use_cases(memory_ports(4), ServiceSettings())
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(tournament_list_router(cases.tournaments))
    app.include_router(tournament_read_router(cases.tournaments))
    app.include_router(tournament_write_router(cases.desk))
    return app


def three_tournaments(http: TestClient) -> None:
    """`old` finished (1 round of 3 players, p1 first), `mid` live (round 1 of 2 seated),
    `new-1` upcoming (no round)."""
    for tid, rounds in (("old", 1), ("mid", 2), ("new-1", 1)):
        body = {"tournament_id": tid, "title": f"Cup {tid}", "game": "penumbra", "rounds": rounds}
        assert http.post("/tournaments", json=body, headers=AUTH).status_code == 201
        for pid in ("p1", "p2", "p3"):
            player = {"player_id": pid, "name": pid.upper()}
            assert http.post(f"/tournaments/{tid}/players", json=player, headers=AUTH).is_success
    for tid in ("old", "mid"):
        assert http.post(f"/tournaments/{tid}/rounds", headers=AUTH).status_code == 201
    results = [{"player_id": f"p{i}", "place": i, "score": 10 - i} for i in (1, 2, 3)]
    url = "/tournaments/old/tables/1/result"
    report = {"action": "report", "round": 1, "results": results}
    assert http.post(url, json=report, headers=AUTH).status_code == 200
    approve = {"action": "approve", "round": 1}
    assert http.post(url, json=approve, headers=AUTH).status_code == 200


def check_listing(http: TestClient) -> None:
    body = http.get("/tournaments", headers=JSON).json()
    assert [t["tournament_id"] for t in body["upcoming"]] == ["new-1"]
    assert [t["tournament_id"] for t in body["live"]] == ["mid"]
    assert [t["tournament_id"] for t in body["finished"]] == ["old"]
    old = body["finished"][0]
    # 3 players at one table, first place pays 7 (7/4/1 at a 3-player table)
    assert old == {
        "tournament_id": "old",
        "title": "Cup old",
        "game": "penumbra",
        "rounds": 1,
        "rounds_seated": 1,
        "players": 3,
        "status": "finished",
        "winner": {"player_id": "p1", "name": "P1", "points": 7.0},
    }
    assert body["live"][0]["rounds_seated"] == 1
    assert body["live"][0]["winner"] is None


def test_the_list_by_status_and_the_pages() -> None:
    with TestClient(list_app()) as http:
        assert http.get("/tournaments", headers=JSON).json() == {
            "live": [],
            "upcoming": [],
            "finished": [],
        }
        three_tournaments(http)
        check_listing(http)
        assert len(http.get("/tournaments?limit=1", headers=JSON).json()["upcoming"]) == 1
        assert http.get("/tournaments?limit=1", headers=JSON).json()["finished"] == []
        assert http.get("/tournaments?limit=101", headers=JSON).status_code == 422
        page = http.get("/tournaments", headers={"Accept": "text/html,*/*"})
        assert page.headers["content-type"].startswith("text/html")
        assert 'id="tn-list-live"' in page.text
        form = http.get("/tournaments/new", headers={"Accept": "text/html"})
        assert form.status_code == 200
        assert 'id="tn-new-form"' in form.text


def test_the_list_on_redis(clean_redis_url: str) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4)
    app = build_app(Roles(inbox=False, projector=False), settings)
    with TestClient(app) as http:
        three_tournaments(http)
        check_listing(http)
        # a second creating request for a taken id is refused and lists nothing twice
        body = {"tournament_id": "old", "title": "again", "game": "penumbra", "rounds": 1}
        assert http.post("/tournaments", json=body, headers=AUTH).status_code == 409
        assert len(http.get("/tournaments", headers=JSON).json()["finished"]) == 1


def test_the_form_offers_only_what_the_service_accepts() -> None:
    """Finding: the form offered "tables of 5", which creation refuses for both games
    (`tournament.remainder_fives`, docs/rules/tournaments.md). Every game and remainder the
    form offers creates a tournament."""
    with TestClient(list_app()) as http:
        form = http.get("/tournaments/new", headers={"Accept": "text/html"}).text
        select = {
            name: re.findall(r'<option value="([a-z_]+)"', part.split("</select>")[0])
            for name, part in ((m, form.split(f'name="{m}"', 1)[1]) for m in ("game", "remainder"))
        }
        assert select["game"] == ["penumbra", "trickerion"]
        assert select["remainder"] == ["threes", "byes"]
        for game in select["game"]:
            for remainder in select["remainder"]:
                tid = f"{game}-{remainder}"
                body = {"tournament_id": tid, "title": tid, "game": game, "rounds": 1}
                made = http.post(
                    "/tournaments", json={**body, "remainder": remainder}, headers=AUTH
                )
                assert made.status_code == 201, made.text
        refused = {"tournament_id": "fives", "title": "x", "game": "penumbra", "rounds": 1}
        no = http.post("/tournaments", json={**refused, "remainder": "fives"}, headers=AUTH)
        assert no.json()["rule"] == "tournament.remainder_fives"
