"""`scoreledger tournament simulate` takes the tournament options of `POST /tournaments`, and a
simulated tournament with each option answers as the same tournament over HTTP: the same
seating round by round, the same standings once the simulated results are reported there."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from services.cli.main import app
from tests.doors.test_tournaments_http import AUTH, memory_app, problem_of

runner = CliRunner()

FLAGS = {
    "scoring": "--scoring",
    "points_4": "--points-4",
    "points_3": "--points-3",
    "points_5": "--points-5",
    "bye_points": "--bye-points",
    "tie_breaks": "--tie-breaks",
    "remainder": "--remainder",
    "pairing": "--pairing",
    "first_round": "--first-round",
}


def cli_args(players: int, rounds: int, seed: int, options: dict[str, Any]) -> list[str]:
    args = ["tournament", "simulate", "--players", str(players), "--rounds", str(rounds)]
    args += ["--seed", str(seed), "--game", "trickerion", "--json"]
    for key, value in options.items():
        text = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
        args += [FLAGS[key], text or "none"]
    return args


def without_games(node: Any) -> Any:
    """`node` without the ids and links of the tables' games: the HTTP desk creates a game per
    table (`cup.r1t1.<hash>`), the offline run reports its results by hand."""
    if isinstance(node, dict):
        return {k: without_games(v) for k, v in node.items() if k not in ("game_id", "links")}
    if isinstance(node, list):
        return [without_games(v) for v in node]
    return node


CASES = [
    pytest.param(9, {}, id="defaults"),
    pytest.param(7, {"scoring": "game_score"}, id="game_score"),
    pytest.param(7, {"points_4": [10, 6, 3, 0], "points_3": [8, 4, 1]}, id="points"),
    pytest.param(7, {"tie_breaks": []}, id="no_tie_breaks"),
    pytest.param(7, {"tie_breaks": ["head_to_head", "buchholz"]}, id="tie_break_order"),
    pytest.param(9, {"remainder": "byes", "bye_points": 2}, id="byes"),
    pytest.param(9, {"remainder": "threes"}, id="threes"),
    pytest.param(8, {"pairing": "balanced", "first_round": "seeded"}, id="pairing"),
]


@pytest.mark.parametrize(("players", "options"), CASES)
def test_a_simulated_tournament_answers_as_the_same_tournament_over_http(
    players: int, options: dict[str, Any]
) -> None:
    rounds, seed = 3, 7
    done = runner.invoke(app, cli_args(players, rounds, seed, options))
    assert done.exit_code == 0, done.output
    sim = json.loads(done.stdout)
    for key, value in options.items():
        assert sim["settings"][key] == value
    new = {
        "tournament_id": "cup",
        "title": "Cup",
        "game": "trickerion",
        "rounds": rounds,
        "seating_seed": seed,
        **options,
    }
    with TestClient(memory_app()) as http:
        assert http.post("/tournaments", json=new, headers=AUTH).status_code == 201
        for i in range(1, players + 1):
            body = {"player_id": f"p{i:02d}", "name": f"Player {i:02d}"}
            assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
        for rnd in sim["rounds"]:
            seated = http.post("/tournaments/cup/rounds", headers=AUTH)
            assert seated.status_code == 201, seated.text
            assert [t["players"] for t in seated.json()["tables"]] == rnd["tables"]
            assert seated.json()["byes"] == rnd["byes"]
            for number, results in enumerate(rnd["results"], 1):
                url = f"/tournaments/cup/tables/{number}/result"
                for body in (
                    {"action": "report", "round": rnd["round"], "results": results},
                    {"action": "approve", "round": rnd["round"], "by": "judge"},
                ):
                    assert http.post(url, json=body, headers=AUTH).status_code == 200
        standings = http.get("/tournaments/cup/standings").json()["players"]
    assert without_games(standings) == without_games(sim["standings"])
    assert [line["player_id"] for line in standings] == [
        line["player_id"] for line in sim["standings"]
    ]


def test_a_refused_option_is_refused_alike() -> None:
    bad = {"points_4": [1, 3, 5, 7]}
    done = runner.invoke(app, cli_args(8, 1, 1, bad))
    assert done.exit_code == 2
    assert "points_4" in done.output
    assert "tournament.points_order" in done.output
    fives = {"remainder": "fives"}
    done = runner.invoke(app, cli_args(9, 1, 1, fives))
    assert done.exit_code == 2
    assert "tournament.remainder_fives" in done.output
    with TestClient(memory_app()) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "trickerion", "rounds": 1}
        for options, rule in ((bad, "request.invalid"), (fives, "tournament.remainder_fives")):
            problem_of(http.post("/tournaments", json={**new, **options}, headers=AUTH), 422, rule)


def test_help_lists_the_tournament_options() -> None:
    done = runner.invoke(app, ["tournament", "simulate", "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0
    for flag in FLAGS.values():
        assert flag in done.output
