"""`scoreledger tournament simulate`: a whole simulated tournament, offline (no Redis).

Seats every round with the seating engine, plays each table with the game simulator, folds it
with the real domain, reports and approves its result on an in-memory tournament stream, and
prints the tournament standings and the seating measures against the greedy method (a second
run of the same tournament seated greedily). Registered by `services/cli/main.py` (its
`FEATURE_COMMANDS`), which hands over the composition root as the context's object.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

import typer
from rich.table import Table

from services.platform.terminal import out

if TYPE_CHECKING:
    from services.tournaments.usecases.stream import Tournaments

tournament_app = typer.Typer(help="Tournaments: simulate one (seating, games, standings).")


class TournamentRoot(Protocol):
    """What the command needs of the composition root (`services.cli.root.CommandRoot`)."""

    def memory_tournaments(self) -> Tournaments:
        """A tournaments use case on a fresh in-memory log."""


Scoring = Literal["placement", "game_score"]
Remainder = Literal["threes", "fives", "byes"]
Pairing = Literal["swiss", "balanced"]
FirstRound = Literal["random", "seeded"]


def _points(text: str | None, hint: str) -> tuple[int, ...] | None:
    """`7,5,3,1` -> (7, 5, 3, 1); None stays None (the service's default)."""
    if text is None:
        return None
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise typer.BadParameter(
            "comma-separated integers, 1st place first", param_hint=hint
        ) from None


def _tie_breaks(text: str | None) -> tuple[str, ...] | None:
    """`buchholz,head_to_head` -> the order; `none` or an empty text -> no tie-breaks."""
    if text is None:
        return None
    if text.strip() in ("", "none"):
        return ()
    return tuple(part.strip() for part in text.split(","))


@tournament_app.command("simulate")
def simulate(
    ctx: typer.Context,
    players: Annotated[
        int, typer.Option("--players", min=3, max=200, help="registered players")
    ] = 13,
    rounds: Annotated[int, typer.Option("--rounds", min=1, max=15, help="rounds to play")] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, help="seating and game seed")] = 1,
    game: Annotated[str, typer.Option("--game", help="trickerion or penumbra")] = "penumbra",
    scoring: Annotated[
        Scoring | None,
        typer.Option("--scoring", help="placement (default) or game_score (the game's score)"),
    ] = None,
    points_4: Annotated[
        str | None,
        typer.Option("--points-4", help="placement points at a 4-player table, e.g. 7,5,3,1"),
    ] = None,
    points_3: Annotated[
        str | None,
        typer.Option("--points-3", help="at a 3-player table (default: scaled from points 4)"),
    ] = None,
    points_5: Annotated[
        str | None,
        typer.Option("--points-5", help="at a 5-player table (default: scaled from points 4)"),
    ] = None,
    bye_points: Annotated[
        int | None, typer.Option("--bye-points", min=0, max=1000, help="what a bye earns")
    ] = None,
    tie_breaks: Annotated[
        str | None,
        typer.Option(
            "--tie-breaks",
            help="tie-breaks in order, comma-separated (opponents_points, opponents_average, "
            "buchholz, median_buchholz, score_difference, head_to_head); none: points, then seed",
        ),
    ] = None,
    remainder: Annotated[
        Remainder | None,
        typer.Option("--remainder", help="a 4k+1 head count: threes (default), fives or byes"),
    ] = None,
    pairing: Annotated[
        Pairing | None, typer.Option("--pairing", help="later rounds: swiss (default) or balanced")
    ] = None,
    first_round: Annotated[
        FirstRound | None,
        typer.Option("--first-round", help="round 1: random (default) or seeded"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the whole run as JSON")] = False,
) -> None:
    """Simulate a tournament: seat each round, play every table, print standings and measures.

    The tournament options are those of `POST /tournaments` (docs/tournament-rules.md), with
    the service's defaults; a value the service refuses exits 2 naming the field and rule.

    --json prints {"players", "rounds_played", "seed", "game", "settings", "rounds":
    [{"round", "tables": [[player ids in seat order]], "byes", "reasons", "results":
    [[{"player_id", "place", "score"}]]}], "standings": [...], "engine": {"repeats",
    "worst_repeats", "seat_spread", "lower_bound", "sum_of_squares", "seating_seconds"},
    "greedy": {...}}.
    """
    from pydantic import ValidationError

    from domain.tournament.tables import SeatingError
    from services.tournaments.simulator import simulate as run
    from services.usecases.refusal import Refusal

    if game not in ("trickerion", "penumbra"):
        raise typer.BadParameter("trickerion or penumbra", param_hint="--game")
    given: dict[str, Any] = {
        "scoring": scoring,
        "points_4": _points(points_4, "--points-4"),
        "points_3": _points(points_3, "--points-3"),
        "points_5": _points(points_5, "--points-5"),
        "bye_points": bye_points,
        "tie_breaks": _tie_breaks(tie_breaks),
        "remainder": remainder,
        "pairing": pairing,
        "first_round": first_round,
    }
    options = {key: value for key, value in given.items() if value is not None}
    root: TournamentRoot = ctx.obj
    try:
        result = run(players, rounds, seed, game, options, new_cases=root.memory_tournaments)
    except SeatingError as refused:
        typer.echo(f"scoreledger tournament simulate: {refused.rule}: {refused}", err=True)
        raise typer.Exit(2) from None
    except Refusal as refused:
        typer.echo(
            f"scoreledger tournament simulate: {refused.rule}: {refused.field}: {refused.message}",
            err=True,
        )
        raise typer.Exit(2) from None
    except ValidationError as invalid:
        error = invalid.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        typer.echo(f"scoreledger tournament simulate: {where}: {error['msg']}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(result))
        return
    _print_run(result)


def _print_run(result: dict[str, Any]) -> None:
    """Print a simulated run: each round's tables, the standings, the seating measures."""
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
