"""Rich rendering of standings for the terminal: one table per game, one column per player
(ranked), one row per breakdown category with its EN / RU label, then the total.

Players are few (at most 6) and categories many (Trickerion has more than a dozen), so
categories run down the rows. Categories where nobody has points are left out.
"""

from __future__ import annotations

from rich.table import Table

from contracts.games import GAMES
from services.usecases.readmodels.shapes import StandingsResponse


def unit_name(score_unit: str) -> str:
    """`fame` -> `Fame`, `vp` -> `VP`: the registered game's label for that unit, else the key."""
    labels = {g.score_unit: g.score_unit_label.en for g in GAMES.values()}
    return labels.get(score_unit, score_unit)


def standings_table(view: StandingsResponse) -> Table:
    """A rich `Table` of `view` (score units: Fame or VP); the caption gives the outcome."""
    status = "final" if view.status == "final" else f"in progress, seq {view.seq}"
    table = Table(
        title=f"{view.game_id} · {view.game} · {status}",
        title_justify="left",
        caption_justify="left",
    )
    table.add_column(f"{unit_name(view.score_unit)} by category")
    for player in view.players:
        table.add_column(f"{player.rank}. {player.name}", justify="right", no_wrap=True)
    rows = len(view.players[0].breakdown) if view.players else 0
    for i in range(rows):
        points = [p.breakdown[i].points for p in view.players]
        if any(points):
            label = view.players[0].breakdown[i]
            table.add_row(f"{label.en} [dim]· {label.ru}[/dim]", *(str(x) for x in points))
    table.add_row("Total", *(str(p.total) for p in view.players), style="bold", end_section=True)
    if any(p.provisional for p in view.players):
        table.add_row(
            "If the game ended now",
            *(str(p.provisional.total) if p.provisional else "" for p in view.players),
            style="italic",
        )
    table.caption = view.result or ""
    return table
