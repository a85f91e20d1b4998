"""Placement points by table size and place.

A 4-player table pays `points_4` (default 7/5/3/1, the common Match Play setting). A 3- or
5-player table pays `points_3` / `points_5` when the organiser set them; otherwise the same
first and last as a 4-player table with the places between evenly spaced, rounded half up:
3 players 7/4/1, 5 players 7/6/4/3/1. Why: a win is a win and last is last at any table, so a
player sent to a 3-player table (which seating decides, not the player) neither gains nor loses
for it at the ends; the middle place of three is exactly halfway. (Proportional scaling, e.g.
7 x 3/4 for a 3-player win, would punish players for the table size seating gave them.)
Tied players share the average of the points of the places they cover: two tied first at a
4-player table get (7 + 5) / 2 = 6 each. Source: docs/rules/tournaments.md#points.
"""

from __future__ import annotations

from fractions import Fraction

from contracts.tournament import ResultLine, TournamentCreated


def points_table(settings: TournamentCreated, size: int) -> tuple[int, ...]:
    """The placement points of a table of `size` players, first place first.

    Raises:
        ValueError: `size` is not 3, 4 or 5.
    """
    if size == 4:
        return settings.points_4
    given = {3: settings.points_3, 5: settings.points_5}.get(size)
    if given is not None:
        return given
    if size not in (3, 5):
        raise ValueError(f"no placement points for a table of {size}")
    first, last = settings.points_4[0], settings.points_4[-1]
    step = Fraction(first - last, size - 1)
    return tuple(int(first - step * i + Fraction(1, 2)) for i in range(size))


def placement_points(
    settings: TournamentCreated, results: tuple[ResultLine, ...]
) -> dict[str, Fraction]:
    """Each player's points for one table's result (shared places share the average)."""
    table = points_table(settings, len(results))
    out: dict[str, Fraction] = {}
    for line in results:
        tied = sum(1 for r in results if r.place == line.place)
        covered = table[line.place - 1 : line.place - 1 + tied]
        out[line.player_id] = Fraction(sum(covered), tied)
    return out
