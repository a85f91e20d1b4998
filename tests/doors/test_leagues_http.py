"""The `/leagues` doors: a league adds a tournament (played through its tables' games) and a
single game; standings and the rating history, now and replayed; the organiser token on
every write; refusals naming the rule."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.bootstrap import UseCases, memory_ports, use_cases
from services.leagues.doors.ingest import league_write_router
from services.leagues.doors.query import league_read_router, tournament_leagues_router
from services.platform.settings import ServiceSettings
from services.simulator.tables import simulate_game
from tests.doors.test_tournament_tables_http import app_of, create, play
from tests.doors.test_tournaments_http import AUTH, problem_of

LEAGUE = {"league_id": "club", "title": "Club", "game": "penumbra"}


def league_app(cases: UseCases) -> FastAPI:
    app = app_of(cases)
    app.include_router(league_read_router(cases.leagues))
    app.include_router(league_write_router(cases.leagues))
    app.include_router(tournament_leagues_router(cases.leagues))
    return app


@pytest.fixture
def http() -> Iterator[TestClient]:
    with TestClient(league_app(use_cases(memory_ports(4), ServiceSettings()))) as client:
        yield client


def played_cup_and_club(http: TestClient) -> dict[str, Any]:
    """Tournament `cup` (results approved at once) with round 1 seated and each table played
    (table n to 10 + n), and league `club` created; returns the seated round's answer."""
    create(http, auto_approve_after_s=0)
    seated: dict[str, Any] = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    for t in seated["tables"]:
        play(http, t, 10 + t["table"])
    assert http.post("/leagues", json=LEAGUE, headers=AUTH).status_code == 201
    return seated


def add_cup_to_club(http: TestClient) -> None:
    """League `club` adds tournament `cup`, which must be accepted."""
    added = http.post("/leagues/club/tournaments", json={"tournament_id": "cup"}, headers=AUTH)
    assert added.status_code == 200, added.text


def single_game(http: TestClient, game_id: str, kind: str = "penumbra") -> list[str]:
    events = [e.model_dump(mode="json") for e in simulate_game(kind, 9, 3, players=3)]
    for e in events:
        e["game_id"] = game_id
    token = {"Authorization": "Bearer " + "t" * 40}
    assert http.post(f"/games/{game_id}/events", json=events, headers=token).status_code == 201
    return [p["player_id"] for p in events[0]["payload"]["players"]]


def test_a_league_adds_a_tournament_and_a_game_and_rates_every_table(http: TestClient) -> None:
    played_cup_and_club(http)
    add_cup_to_club(http)
    solo = single_game(http, "friday-1")
    assert (
        http.post("/leagues/club/games", json={"game_id": "friday-1"}, headers=AUTH).status_code
        == 200
    )
    table = http.get("/leagues/club/standings").json()
    cup = {
        line["player_id"]: line["points"]["text"]
        for line in http.get("/tournaments/cup/standings").json()["players"]
    }
    by_id = {line["player_id"]: line for line in table["players"]}
    # Tournament players keep their tournament points (7 players: none of them in the game).
    for pid, text in cup.items():
        assert by_id[pid]["points"] == f"{float(text):.2f}"
    # The single game's 3 players get 7, 4, 1 (a 3-player table scaled from 7/5/3/1).
    assert sorted(by_id[p]["points"] for p in solo) == ["1.00", "4.00", "7.00"]
    ratings = http.get("/leagues/club/ratings").json()
    history = ratings["history"]
    assert [(s["addition"], s["round"], s["table"]) for s in history] == [
        ("tournament:cup", 1, 1), ("tournament:cup", 1, 2), ("game:friday-1", None, None),
    ]  # fmt: skip
    first = history[0]["players"]
    assert all(p["before"]["mu"] == 25.0 for p in first.values())
    winner = next(line["player_id"] for line in seated_results(http, 1) if line["place"] == 1)
    assert first[winner]["after"]["mu"] > 25
    # The replay before the game: two rated tables, nobody of the game rated yet.
    then = http.get("/leagues/club/ratings?at_seq=2").json()
    assert len(then["history"]) == 2
    assert not set(solo) & {r["player_id"] for r in then["ratings"]}
    assert by_id[solo[0]]["rating"] is not None


def seated_results(http: TestClient, table: int) -> list[dict[str, object]]:
    rounds = http.get("/tournaments/cup").json()["rounds"]
    approved: list[dict[str, object]] = rounds[0]["tables"][table - 1]["approved"]
    return approved


def test_league_writes_need_its_token_and_name_the_rule(http: TestClient) -> None:
    create(http)
    created = http.post("/leagues", json=LEAGUE)
    assert created.status_code == 201
    token = {"Authorization": f"Bearer {created.json()['organiser_token']}"}
    problem_of(http.post("/leagues", json=LEAGUE, headers=AUTH), 409, "league.already_created")
    body = {"tournament_id": "cup"}
    problem_of(http.post("/leagues/club/tournaments", json=body), 401, "auth.token_required")
    problem_of(
        http.post("/leagues/club/tournaments", json=body, headers=AUTH), 403, "auth.token_rejected"
    )
    problem_of(
        http.post("/leagues/club/tournaments", json=body, headers=token),
        422,
        "league.nothing_played",
    )
    problem_of(
        http.post("/leagues/nope/tournaments", json=body, headers=token), 404, "league.not_found"
    )
    single_game(http, "tr-1", "trickerion")
    problem_of(
        http.post("/leagues/club/games", json={"game_id": "tr-1"}, headers=token),
        422,
        "league.wrong_game",
    )
    problem_of(http.get("/leagues/club/ratings?at_seq=5"), 404, "league.seq_not_found")
    bad = {**LEAGUE, "league_id": "x", "count": "best"}
    problem_of(http.post("/leagues", json=bad), 422, "request.invalid")


def test_a_league_game_must_be_final_and_of_two_players_or_more(http: TestClient) -> None:
    created = http.post("/leagues", json=LEAGUE, headers=AUTH)
    assert created.status_code == 201
    token = {"Authorization": "Bearer " + "t" * 40}
    solo = [e.model_dump(mode="json") for e in simulate_game("penumbra", 9, 4, players=1)]
    assert (
        http.post(
            "/games/solo-1/events", json=[{**e, "game_id": "solo-1"} for e in solo], headers=token
        ).status_code
        == 201
    )
    problem_of(
        http.post("/leagues/club/games", json={"game_id": "solo-1"}, headers=AUTH),
        422,
        "league.game_players",
    )
    duo = [e.model_dump(mode="json") for e in simulate_game("penumbra", 9, 5, players=2)]
    half = [{**e, "game_id": "half-1"} for e in duo[: len(duo) // 2]]
    assert http.post("/games/half-1/events", json=half, headers=token).status_code == 201
    problem_of(
        http.post("/leagues/club/games", json={"game_id": "half-1"}, headers=AUTH),
        422,
        "tournament.game_not_final",
    )
    problem_of(
        http.post("/leagues/club/games", json={"game_id": "nope"}, headers=AUTH),
        422,
        "league.unknown_game_id",
    )
