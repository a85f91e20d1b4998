"""`scoreledger league simulate`: simulated tournaments added to one league, rated game by
game."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()
ARGS = ["league", "simulate", "--tournaments", "2", "--players", "9", "--rounds", "2"]


def test_two_tournaments_of_nine_add_up_and_every_table_is_rated() -> None:
    done = runner.invoke(app, [*ARGS, "--seed", "3", "--json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    # 9 players sit 3+3+3: 2 tournaments x 2 rounds x 3 tables = 12 games.
    assert result["games_rated"] == 12
    # Each 3-player table pays 7 + 4 + 1 = 12 (shared places share the same sum): 12 x 12.
    assert sum(float(line["points"]) for line in result["standings"]) == 144
    assert all(line["played"] == 2 for line in result["standings"])
    assert len(result["ratings"]) == 9
    ordinals = [r["ordinal"] for r in result["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)


def test_best_one_counts_one_tournament_per_player() -> None:
    every = json.loads(runner.invoke(app, [*ARGS, "--seed", "3", "--json"]).stdout)
    best = json.loads(runner.invoke(app, [*ARGS, "--seed", "3", "--best", "1", "--json"]).stdout)
    for line in best["standings"]:
        counted = [p for p in line["parts"] if p["counted"]]
        assert len(counted) == 1
        assert float(line["points"]) == max(float(p["points"]) for p in line["parts"])
    assert best["ratings"] == every["ratings"]  # the rating counts every game either way
