"""`scoreledger tournament simulate`: a whole simulated tournament, offline (no Redis).

Seats every round with the seating engine, plays each table with the game simulator, folds it
with the real domain, reports and approves its result on an in-memory tournament stream, and
prints the tournament standings and the seating measures against the greedy method (a second
run of the same tournament seated greedily). Registered in `services/cli/main.py`.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from services.cli.terminal import out

tournament_app = typer.Typer(help="Tournaments: simulate one (seating, games, standings).")


@tournament_app.command("simulate")
def simulate(
    players: Annotated[
        int, typer.Option("--players", min=3, max=200, help="registered players")
    ] = 13,
    rounds: Annotated[int, typer.Option("--rounds", min=1, max=15, help="rounds to play")] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, help="seating and game seed")] = 1,
    game: Annotated[str, typer.Option("--game", help="trickerion or penumbra")] = "penumbra",
    as_json: Annotated[bool, typer.Option("--json", help="print the whole run as JSON")] = False,
) -> None:
    """Simulate a tournament: seat each round, play every table, print standings and measures.

    --json prints {"players", "rounds_played", "seed", "game", "rounds": [{"round", "tables":
    [[player ids in seat order]], "byes", "reasons"}], "standings": [...], "engine": {"repeats",
    "worst_repeats", "seat_spread", "lower_bound", "sum_of_squares", "seating_seconds"},
    "greedy": {...}}.
    """
    from domain.tournament.tables import SeatingError
    from services.simulator.tournament import simulate as run

    if game not in ("trickerion", "penumbra"):
        raise typer.BadParameter("trickerion or penumbra", param_hint="--game")
    try:
        result = run(players, rounds, seed, game)
    except SeatingError as refused:
        typer.echo(f"scoreledger tournament simulate: {refused.rule}: {refused}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(result))
        return
    for rnd in result["rounds"]:
        sizes = "+".join(str(len(t)) for t in rnd["tables"])
        out.print(f"[bold]Round {rnd['round']}[/] ({sizes})")
        for number, (table, reason) in enumerate(
            zip(rnd["tables"], rnd["reasons"], strict=True), 1
        ):
            out.print(f"  T{number}: {' '.join(table)}  [dim]{reason}[/]")
    standings = Table(title="Standings")
    for column in ("place", "player", "points", "games", "why"):
        standings.add_column(column)
    for line in result["standings"]:
        standings.add_row(
            str(line["place"]),
            line["player_id"],
            f"{line['points']['value']:g}",
            str(line["games"]),
            line["explain"],
        )
    out.print(standings)
    measures = Table(title="Seating: engine against greedy")
    measures.add_column("measure")
    measures.add_column("engine")
    measures.add_column("greedy")
    for key in (
        "repeats",
        "worst_repeats",
        "seat_spread",
        "lower_bound",
        "sum_of_squares",
        "seating_seconds",
    ):
        measures.add_row(key, str(result["engine"][key]), str(result["greedy"][key]))
    out.print(measures)
