"""How many tables of which size a round needs: as many 4-player tables as possible, the rest
of 3; a 5-player table or a bye only when the organiser configured it.

Source: Match Play Events' group match play ("3-player games when the head count doesn't divide
by four"), TopDeck.gg's bye modes (docs/rules/tournaments.md#tables).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Remainder = Literal["threes", "fives", "byes"]
"""What absorbs players beyond the 4-player tables: `threes` (default: 3-player tables only),
`fives` (a head count of 4k+1 plays one 5-player table instead of three 3-player tables),
`byes` (a head count of 4k+1 gives one player a bye instead)."""


class SeatingError(ValueError):
    """A round cannot be seated; `rule` names the rule (`seating.*`), `field` the input."""

    def __init__(self, rule: str, message: str, field: str = "players") -> None:
        super().__init__(message)
        self.rule = rule
        self.field = field


@dataclass(frozen=True, slots=True)
class Layout:
    """The table sizes of a round, largest first, and how many players get a bye."""

    sizes: tuple[int, ...]
    byes: int

    def describe(self) -> str:
        """E.g. `13 players: 4+3+3+3`."""
        seated = sum(self.sizes)
        text = f"{seated + self.byes} players: " + "+".join(str(s) for s in self.sizes)
        return text + (f", {self.byes} bye" if self.byes else "")


def layout(players: int, remainder: Remainder = "threes") -> Layout:
    """The table sizes for `players` active players.

    `threes`: n = 4a + 3b with a as large as possible (6 -> 3+3, 13 -> 4+3+3+3). Only a
    4k+1 head count needs three 3-player tables; `fives` plays it as one 5-player table and
    `byes` as one bye; 5 players seat only with `fives` (one table of 5) or `byes` (4 + bye).

    Raises:
        SeatingError: `seating.too_few_players` (fewer than 3), `seating.five_players`
            (5 players and neither fives nor byes configured).
    """
    if players < 3:
        raise SeatingError(
            "seating.too_few_players", f"{players} active players: a table needs at least 3"
        )
    rest = players % 4
    if rest == 1 and remainder == "fives":
        return Layout((5,) + (4,) * ((players - 5) // 4), 0)
    if rest == 1 and remainder == "byes":
        return Layout((4,) * ((players - 1) // 4), 1)
    if players == 5:
        raise SeatingError(
            "seating.five_players",
            "5 active players cannot sit at tables of 3 and 4; configure a 5-player table "
            "(remainder=fives) or a bye (remainder=byes)",
        )
    threes = {0: 0, 1: 3, 2: 2, 3: 1}[rest]
    fours = (players - 3 * threes) // 4
    return Layout((4,) * fours + (3,) * threes, 0)
