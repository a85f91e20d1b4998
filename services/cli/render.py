"""Rich rendering of standings for the terminal: one table per game with the breakdown."""

from __future__ import annotations

from rich.table import Table

from domain.standings import Standings
from services.query.labels import category_labels, outcome_text


def standings_table(result: Standings, title: str | None = None) -> Table:
    """A rich `Table`: rank, player, total, one column per category (EN / RU label), and the
    provisional "if the game ended now" total during play. Units: the game's score unit."""
    unit = result.score_unit.upper() if result.score_unit == "vp" else result.score_unit.title()
    status = "final" if result.status == "final" else f"in progress (seq {result.seq})"
    table = Table(title=title or f"{result.game_id} · {result.game} · {status}", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("Player")
    table.add_column(f"Total {unit}", justify="right", style="bold")
    labels = category_labels(result)
    for label in labels:
        table.add_column(f"{label.en}\n{label.ru}", justify="right")
    provisional = any(p.provisional for p in result.players)
    if provisional:
        table.add_column("If ended now", justify="right", style="italic")
    for player in result.players:
        row = [str(player.rank), player.name, str(player.total)]
        row += [str(player.categories.get(label.key, 0)) for label in labels]
        if provisional:
            row.append(str(player.provisional.total) if player.provisional else "")
        table.add_row(*row)
    table.caption = outcome_text(result)
    return table

