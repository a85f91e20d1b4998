"""The `/tournaments` doors: the organiser token checked first on every write, a whole small
tournament through HTTP, problems naming the rule, standings at any seq and as CSV. On the
memory adapters (the routers alone), and once through the assembled app on a real Redis."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.bootstrap import Roles, build_app, memory_ports, use_cases
from services.doors.asgi.http_errors import install_problem_handlers
from services.platform.settings import ServiceSettings
from services.tournaments.doors.ingest import tournament_write_router
from services.tournaments.doors.query import tournament_read_router

TOKEN = "organiser-token-0123456789-abcdefghij"
PLAYERS = [f"p{i:02d}" for i in range(1, 8)]  # 7 players: a 4 and a 3 each round
NEW = {"tournament_id": "cup", "title": "Cup", "game": "trickerion", "rounds": 2}


def memory_app(settings: ServiceSettings | None = None) -> FastAPI:
    cases = use_cases(memory_ports(4), settings or ServiceSettings())
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(tournament_read_router(cases.tournaments))
    app.include_router(tournament_write_router(cases.desk))
    return app


@pytest.fixture
def http() -> Iterator[TestClient]:
    with TestClient(memory_app()) as client:
        yield client


AUTH = {"Authorization": f"Bearer {TOKEN}"}


def problem_of(response: httpx.Response, status: int, rule: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["rule"] == rule, body
    return body


def setup(http: TestClient, players: list[str] = PLAYERS) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    for pid in players:
        r = http.post(
            "/tournaments/cup/players", json={"player_id": pid, "name": pid.upper()}, headers=AUTH
        )
        assert r.status_code == 201, r.text


def play_round(http: TestClient, number: int) -> list[list[str]]:
    seated = http.post("/tournaments/cup/rounds", headers=AUTH)
    assert seated.status_code == 201, seated.text
    tables = [t["players"] for t in seated.json()["tables"]]
    for n, players in enumerate(tables, 1):
        results = [{"player_id": p, "place": i, "score": 30 - i} for i, p in enumerate(players, 1)]
        url = f"/tournaments/cup/tables/{n}/result"
        body = {"action": "report", "round": number, "results": results, "by": players[0]}
        assert http.post(url, json=body, headers=AUTH).status_code == 200
        approved = http.post(
            url, json={"action": "approve", "round": number, "by": "judge"}, headers=AUTH
        )
        assert approved.status_code == 200, approved.text
    return tables


def test_a_tournament_runs_through_http(http: TestClient) -> None:
    setup(http)
    first = play_round(http, 1)
    assert sorted(len(t) for t in first) == [3, 4]
    # the last approval closed round 1, so round 2 seats; a late join and a drop before it
    assert (
        http.post(
            "/tournaments/cup/players", json={"player_id": "p08", "name": "H"}, headers=AUTH
        ).status_code
        == 201
    )
    assert http.delete("/tournaments/cup/players/p01?reason=ill", headers=AUTH).status_code == 200
    second = play_round(http, 2)
    seated = sorted(p for t in second for p in t)
    assert "p01" not in seated
    assert "p08" in seated
    assert len(seated) == 7
    info = http.get("/tournaments/cup").json()
    assert [r["closed"] for r in info["rounds"]] == [True, True]
    assert {p["player_id"]: p["from_round"] for p in info["players"]}["p08"] == 2
    table = http.get("/tournaments/cup/standings").json()
    assert len(table["players"]) == 8
    assert table["held"] == []
    top = table["players"][0]
    assert top["points"]["sources"]
    assert "explain" in top
    assert problem_of(
        http.post("/tournaments/cup/rounds", headers=AUTH), 422, "tournament.rounds_done"
    )


def test_standings_at_any_seq_and_as_csv(http: TestClient) -> None:
    setup(http)
    play_round(http, 1)
    now = http.get("/tournaments/cup/standings").json()
    before = http.get("/tournaments/cup/standings?at_seq=8").json()  # registered and seated only
    assert before["seq"] == 8
    assert now["seq"] > 8
    assert all(line["points"]["value"] == 0 for line in before["players"])
    assert any(line["points"]["value"] > 0 for line in now["players"])
    problem_of(http.get("/tournaments/cup/standings?at_seq=999"), 404, "tournament.seq_not_found")
    response = http.get("/tournaments/cup/standings.csv")
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["player_id"] for r in rows] == [p["player_id"] for p in now["players"]]
    assert float(rows[0]["points"]) == now["players"][0]["points"]["value"]
    assert "opponents_points" in rows[0]
    old = list(
        csv.DictReader(io.StringIO(http.get("/tournaments/cup/standings.csv?at_seq=8").text))
    )
    assert {r["points"] for r in old} == {"0.00"}


def test_a_csv_cell_never_starts_a_formula(http: TestClient) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    body = {"player_id": "x1", "name": '=HYPERLINK("http://evil")'}
    assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
    rows = list(csv.DictReader(io.StringIO(http.get("/tournaments/cup/standings.csv").text)))
    assert rows[0]["name"].startswith("'=")


def test_every_write_needs_the_organiser_token_checked_before_the_body(http: TestClient) -> None:
    setup(http, PLAYERS[:3])
    writes = [
        ("POST", "/tournaments/cup/players", {"player_id": "z", "name": "Z"}),
        ("DELETE", "/tournaments/cup/players/p01", None),
        ("POST", "/tournaments/cup/rounds", None),
        ("POST", "/tournaments/cup/tables/1/result", {"action": "approve", "round": 1}),
    ]
    for method, url, body in writes:
        r = http.request(method, url, json=body)
        problem_of(r, 401, "auth.token_required")
        assert r.headers["www-authenticate"] == "Bearer"
        wrong = {"Authorization": "Bearer " + "x" * 40}
        problem_of(http.request(method, url, json=body, headers=wrong), 403, "auth.token_rejected")
        # the body is not looked at before the token: garbage without one is still 401
        problem_of(
            http.request(
                method, url, content=b"{not json", headers={"content-type": "application/json"}
            ),
            401,
            "auth.token_required",
        )
        problem_of(
            http.request(method, url.replace("/cup/", "/nope/"), json=body, headers=AUTH),
            404,
            "tournament.not_found",
        )
    assert http.get("/tournaments/cup").json()["seq"] == 4  # nothing written


def test_creation_chooses_or_gets_a_token_and_happens_once(http: TestClient) -> None:
    made = http.post("/tournaments", json={**NEW, "tournament_id": "gen"})
    assert made.status_code == 201
    token = made.json()["organiser_token"]
    assert len(token) >= 32
    ok = http.post(
        "/tournaments/gen/players",
        json={"player_id": "a", "name": "A"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert ok.status_code == 201
    assert ok.json()["version"] == 2
    chosen = http.post("/tournaments", json=NEW, headers=AUTH)
    assert chosen.status_code == 201
    assert "organiser_token" not in chosen.json()
    problem_of(http.post("/tournaments", json=NEW, headers=AUTH), 409, "tournament.already_created")
    problem_of(
        http.post(
            "/tournaments",
            json={**NEW, "tournament_id": "short"},
            headers={"Authorization": "Bearer short"},
        ),
        422,
        "auth.token_format",
    )


def test_bad_input_is_a_problem_naming_the_rule_or_field(http: TestClient) -> None:
    bad = http.post("/tournaments", json={**NEW, "rounds": 0}, headers=AUTH)
    assert problem_of(bad, 422, "request.invalid")["field"] == "rounds"
    problem_of(
        http.post("/tournaments", json={**NEW, "tournament_id": "a b"}, headers=AUTH),
        422,
        "request.invalid",
    )
    setup(http, PLAYERS[:4])
    problem_of(
        http.post(
            "/tournaments/cup/players", json={"player_id": "p01", "name": "again"}, headers=AUTH
        ),
        422,
        "tournament.player_exists",
    )
    url = "/tournaments/cup/tables/1/result"
    problem_of(
        http.post(url, json={"action": "approve", "round": 1}, headers=AUTH),
        422,
        "tournament.unknown_round",
    )
    assert http.post("/tournaments/cup/rounds", headers=AUTH).status_code == 201
    problem_of(http.post("/tournaments/cup/rounds", headers=AUTH), 422, "tournament.round_open")
    problem_of(
        http.post(url, json={"action": "approve", "round": 1}, headers=AUTH),
        422,
        "tournament.no_result",
    )
    wrong = [{"player_id": p, "place": 1, "score": 0} for p in ("x", "y", "z")]
    problem_of(
        http.post(url, json={"action": "report", "round": 1, "results": wrong}, headers=AUTH),
        422,
        "tournament.result_players",
    )
    problem_of(
        http.post(url, json={"action": "report", "round": 1}, headers=AUTH), 422, "request.invalid"
    )
    problem_of(http.get("/tournaments/nope/standings"), 404, "tournament.not_found")


def test_a_dispute_holds_the_table_out_until_approved(http: TestClient) -> None:
    setup(http, PLAYERS[:4])
    tables = [
        t["players"] for t in http.post("/tournaments/cup/rounds", headers=AUTH).json()["tables"]
    ]
    results = [{"player_id": p, "place": i, "score": 10 - i} for i, p in enumerate(tables[0], 1)]
    url = "/tournaments/cup/tables/1/result"
    http.post(url, json={"action": "report", "round": 1, "results": results}, headers=AUTH)
    disputed = http.post(
        url,
        json={"action": "dispute", "round": 1, "by": tables[0][1], "reason": "miscount"},
        headers=AUTH,
    )
    assert disputed.status_code == 200
    assert http.get("/tournaments/cup/standings").json()["held"] == [
        {"round": 1, "table": 1, "status": "disputed"}
    ]
    ruling = list(reversed(results))
    ruling = [{**r, "place": i} for i, r in enumerate(ruling, 1)]
    http.post(
        url, json={"action": "approve", "round": 1, "by": "judge", "results": ruling}, headers=AUTH
    )
    table = http.get("/tournaments/cup/standings").json()
    assert table["held"] == []
    assert table["players"][0]["player_id"] == tables[0][-1]
    assert http.get("/tournaments/cup").json()["rounds"][0]["closed"] is True


@pytest.mark.redis
def test_the_assembled_app_on_redis(clean_redis_url: str) -> None:
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4)
    app = build_app(Roles(inbox=False, projector=False), settings)
    with TestClient(app) as http:
        setup(http)
        play_round(http, 1)
        table = http.get("/tournaments/cup/standings").json()
        assert len(table["players"]) == 7
        assert table["held"] == []
        assert http.get("/tournaments/cup").json()["rounds"][0]["closed"] is True
        problem_of(
            http.post("/tournaments/cup/rounds", headers={"Authorization": "Bearer " + "y" * 40}),
            403,
            "auth.token_rejected",
        )


def test_the_creator_key_guards_creating_tournaments_as_games() -> None:
    settings = ServiceSettings(creator_key="integration-key-0123456789abcdefghijkl")
    with TestClient(memory_app(settings)) as http:
        problem_of(
            http.post("/tournaments", json=NEW, headers=AUTH), 401, "auth.creator_key_required"
        )
        wrong = {**AUTH, "X-Creator-Key": "nope"}
        problem_of(
            http.post("/tournaments", json=NEW, headers=wrong), 403, "auth.creator_key_rejected"
        )
        right = {**AUTH, "X-Creator-Key": "integration-key-0123456789abcdefghijkl"}
        assert http.post("/tournaments", json=NEW, headers=right).status_code == 201


def test_a_creation_is_checked_before_its_body_is_read() -> None:
    settings = ServiceSettings(creator_key="integration-key-0123456789abcdefghijkl")
    garbage = {"content-type": "application/json"}
    with TestClient(memory_app(settings)) as http:
        r = http.post("/tournaments", content=b"{not json", headers=garbage)
        problem_of(r, 401, "auth.creator_key_required")
    with TestClient(memory_app()) as http:
        short = {**garbage, "Authorization": "Bearer short"}
        problem_of(
            http.post("/tournaments", content=b"{not json", headers=short), 422, "auth.token_format"
        )


def test_a_request_refused_by_its_schema_lists_errors_as_the_games_door_does(
    http: TestClient,
) -> None:
    """One problem shape on every door: a tournament body failing its schema lists `errors`
    (type, loc, msg of each) as `POST /games/{id}/events` does."""
    bad = problem_of(
        http.post("/tournaments", json={**NEW, "rounds": 0}, headers=AUTH), 422, "request.invalid"
    )
    assert [(e["type"], e["loc"][-1]) for e in bad["errors"]] == [("greater_than_equal", "rounds")]
