"""`scoreledger tournament simulate`: a whole simulated tournament, offline."""

from __future__ import annotations

import json
from collections import Counter

from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()


def test_thirteen_players_five_rounds_sit_four_three_three_three_every_round() -> None:
    done = runner.invoke(
        app, ["tournament", "simulate", "--players", "13", "--rounds", "5", "--seed", "1", "--json"]
    )
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert len(result["rounds"]) == 5
    everyone = {f"p{i:02d}" for i in range(1, 14)}
    for rnd in result["rounds"]:
        assert sorted(len(t) for t in rnd["tables"]) == [3, 3, 3, 4]
        assert Counter(p for t in rnd["tables"] for p in t) == Counter(everyone)
    for method in ("engine", "greedy"):
        assert {"repeats", "seat_spread"} <= set(result[method])
    assert result["engine"]["repeats"] < result["greedy"]["repeats"]
    assert result["engine"]["seat_spread"] <= 1
    assert [line["place"] for line in result["standings"]] == list(range(1, 14))
    assert sum(line["games"] for line in result["standings"]) == 13 * 5


def test_the_same_seed_prints_the_same_tournament() -> None:
    args = ["tournament", "simulate", "--players", "8", "--rounds", "2", "--seed", "4", "--json"]
    first, second = runner.invoke(app, args), runner.invoke(app, args)
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    for doc in (a, b):
        for method in ("engine", "greedy"):
            doc[method].pop("seating_seconds")
    assert a == b


def test_five_players_are_refused_by_rule() -> None:
    done = runner.invoke(app, ["tournament", "simulate", "--players", "5", "--rounds", "1"])
    assert done.exit_code == 2
    assert "seating.five_players" in done.output
