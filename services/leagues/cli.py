"""`scoreledger league simulate`: a simulated league, offline (no Redis): simulated
tournaments added to one league, its standings and openskill ratings. Registered by
`services/cli/main.py` (its `FEATURE_COMMANDS`), which hands over the composition root as the
context's object."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from services.platform.terminal import out

league_app = typer.Typer(help="Leagues: simulate one (tournaments added up, ratings).")


@league_app.command("simulate")
def simulate(
    ctx: typer.Context,
    tournaments: Annotated[int, typer.Option("--tournaments", min=1, max=20)] = 3,
    players: Annotated[int, typer.Option("--players", min=6, max=100)] = 13,
    rounds: Annotated[int, typer.Option("--rounds", min=1, max=10)] = 3,
    seed: Annotated[int, typer.Option("--seed", min=0)] = 1,
    game: Annotated[str, typer.Option("--game", help="trickerion or penumbra")] = "penumbra",
    best: Annotated[int | None, typer.Option("--best", min=1, help="count best N")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Simulate a league: `--tournaments` simulated tournaments (seeds `--seed`, +1, ...)
    added up (all, or `--best N`); prints the league table and the ratings. --json prints
    {"tournaments", "games_rated", "standings": [...], "ratings": [{"player_id", "mu",
    "sigma", "ordinal"}]}."""
    import asyncio

    from services.leagues.simulator import run_league  # ctx.obj: its Builders

    if game not in ("trickerion", "penumbra"):
        raise typer.BadParameter("trickerion or penumbra", param_hint="--game")
    result = asyncio.run(run_league(tournaments, players, rounds, seed, game, best, ctx.obj))
    if as_json:
        typer.echo(json.dumps(result))
        return
    ratings = {r["player_id"]: r for r in result["ratings"]}
    table = Table(title=f"League: {tournaments} tournaments, {result['games_rated']} games rated")
    for column in ("place", "player", "points", "played", "mu", "sigma", "ordinal"):
        table.add_column(column)
    for line in result["standings"]:
        r = ratings.get(line["player_id"], {})
        table.add_row(
            str(line["place"]),
            line["player_id"],
            line["points"],
            str(line["played"]),
            *(f"{r.get(k, 0):.2f}" for k in ("mu", "sigma", "ordinal")),
        )
    out.print(table)
