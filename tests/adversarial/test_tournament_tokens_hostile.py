"""Hostile clients against tournaments, tables and leagues: a table's game
token must not override what a judge ruled, and a league must not count one game twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from tests.doors.test_leagues_http import add_cup_to_club, league_app, played_cup_and_club
from tests.doors.test_tournament_tables_http import create, play
from tests.doors.test_tournaments_http import AUTH, problem_of


@pytest.fixture
def http() -> Iterator[TestClient]:
    with TestClient(league_app(use_cases(memory_ports(4), ServiceSettings()))) as client:
        yield client


def _correction(last: dict[str, Any], player_id: str, amount: int) -> dict[str, Any]:
    return {
        **last,
        "event_id": "00000000-0000-4000-8000-00000000b001",
        "seq": last["seq"] + 1,
        "type": "game.score_corrected",
        "schema_version": 2,
        "actor": "player",
        "payload": {"player_id": player_id, "amount": amount, "reason": "mine", "referee": "me"},
    }


def test_a_tables_token_cannot_overturn_a_judges_approval(http: TestClient) -> None:
    # With a judge in office only a judge approves (docs/tournaments.md). The table's game
    # token is the players'; a "correction" written with it after the judge approved must not
    # become the approved result by itself: the table is held for a judge instead.
    create(http)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    t1 = seated["tables"][0]
    events = play(http, t1, 11)
    appointed = http.post(
        "/tournaments/cup/judges", json={"judge_id": "jo", "name": "Jo"}, headers=AUTH
    ).json()
    judge = {"Authorization": f"Bearer {appointed['judge_token']}"}
    url = "/tournaments/cup/tables/1/result"
    ok = http.post(url, json={"action": "approve", "round": 1}, headers=judge)
    assert ok.status_code == 200, ok.text
    table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
    last = next(line["player_id"] for line in table["approved"] if line["place"] == 4)
    # The last player, holding the table's token, gives themselves 500 VP.
    table_auth = {"Authorization": f"Bearer {t1['game_token']}"}
    posted = http.post(
        f"/games/{t1['game_id']}/events",
        json=_correction(events[-1], last, 500),
        headers=table_auth,
    )
    assert posted.status_code == 201, posted.text
    table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
    # Held out of the standings until the judge rules again.
    assert table["status"] == "disputed"
    held = http.get("/tournaments/cup/standings").json()["held"]
    assert held == [{"round": 1, "table": 1, "status": "disputed"}]
    standings = {
        line["player_id"]: line["points"]["value"]
        for line in http.get("/tournaments/cup/standings").json()["players"]
    }
    assert standings[last] != 7  # not first by a correction nobody judged
    # The judge rules on the table again: approved.
    ruled = http.post(url, json={"action": "approve", "round": 1}, headers=judge)
    assert ruled.status_code == 200, ruled.text
    table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
    assert table["status"] == "approved"


def test_a_league_does_not_count_a_tables_game_twice(http: TestClient) -> None:
    # A tournament's table games are already in the league through the tournament: adding
    # one of them again as a single game would count its points and its rating twice.
    seated = played_cup_and_club(http)
    add_cup_to_club(http)
    game_id = seated["tables"][0]["game_id"]
    twice = http.post("/leagues/club/games", json={"game_id": game_id}, headers=AUTH)
    problem_of(twice, 422, "league.counted_twice")
    history = http.get("/leagues/club/ratings").json()["history"]
    assert len(history) == 2  # the two tables, once each


def test_a_league_does_not_take_a_tournament_whose_table_it_has_as_a_game(
    http: TestClient,
) -> None:
    seated = played_cup_and_club(http)
    game_id = seated["tables"][1]["game_id"]
    single = http.post("/leagues/club/games", json={"game_id": game_id}, headers=AUTH)
    assert single.status_code == 200, single.text
    both = http.post("/leagues/club/tournaments", json={"tournament_id": "cup"}, headers=AUTH)
    problem_of(both, 422, "league.counted_twice")
    assert len(http.get("/leagues/club/ratings").json()["history"]) == 1


def test_fives_are_refused_for_a_game_that_seats_at_most_four(http: TestClient) -> None:
    new = {"tournament_id": "f", "title": "F", "game": "penumbra", "rounds": 1}
    created = http.post("/tournaments", json={**new, "remainder": "fives"}, headers=AUTH)
    problem_of(created, 422, "tournament.remainder_fives")
    trick = {**new, "tournament_id": "g", "game": "trickerion", "remainder": "fives"}
    problem_of(
        http.post("/tournaments", json=trick, headers=AUTH), 422, "tournament.remainder_fives"
    )
    # Byes still seat 4k+1 players with every table playable.
    assert (
        http.post("/tournaments", json={**new, "remainder": "byes"}, headers=AUTH).status_code
        == 201
    )
    for i in range(9):
        body = {"player_id": f"p{i}", "name": f"P{i}"}
        assert http.post("/tournaments/f/players", json=body, headers=AUTH).status_code == 201
    seated = http.post("/tournaments/f/rounds", headers=AUTH).json()
    assert [len(t["players"]) for t in seated["tables"]] == [4, 4]
    assert [t["game_refused"] for t in seated["tables"]] == [None, None]
    assert len(seated["byes"]) == 1


def test_a_dismissed_judges_token_stays_dead_when_the_id_is_reused(http: TestClient) -> None:
    new = {"tournament_id": "c", "title": "C", "game": "penumbra", "rounds": 1}
    assert http.post("/tournaments", json=new, headers=AUTH).status_code == 201
    first = http.post("/tournaments/c/judges", json={"judge_id": "jo", "name": "Jo"}, headers=AUTH)
    old = first.json()["judge_token"]
    assert http.delete("/tournaments/c/judges/jo", headers=AUTH).status_code == 200
    again = http.post(
        "/tournaments/c/judges", json={"judge_id": "jo", "name": "Jo Two"}, headers=AUTH
    )
    problem_of(again, 422, "tournament.judge_id_reused")
    dispute = {"action": "dispute", "round": 1, "reason": "x"}
    problem_of(
        http.post(
            "/tournaments/c/tables/1/result",
            json=dispute,
            headers={"Authorization": f"Bearer {old}"},
        ),
        403,
        "auth.token_rejected",
    )
    # A new id is a new token.
    other = http.post("/tournaments/c/judges", json={"judge_id": "jo2", "name": "Jo"}, headers=AUTH)
    assert other.status_code == 201
    assert other.json()["judge_token"] != old


def test_the_tournament_qr_code_encodes_the_public_url_not_the_requests_host() -> None:
    # SCORELEDGER_PUBLIC_URL is the address phones reach: the games' QR code encodes it; the
    # tournament's took the request's Host header (a proxy's internal name, or any Host a
    # client sends, cached for 300 s).
    from fastapi import FastAPI

    from services.tournaments.doors.web import tournament_web_router

    cases = use_cases(memory_ports(4), ServiceSettings())
    settings = ServiceSettings(public_url="https://scores.example.org/club/")  # type: ignore[arg-type]
    app = FastAPI()
    app.include_router(league_app(cases).router)
    app.include_router(tournament_web_router(cases.tournaments, settings))
    with TestClient(app) as client:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert client.post("/tournaments", json=new, headers=AUTH).status_code == 201
        qr = client.get("/tournaments/cup/qr.svg", headers={"Host": "evil.example"})
        assert qr.status_code == 200
        assert qr.headers["x-qr-url"] == "https://scores.example.org/club/tournaments/cup/me"
