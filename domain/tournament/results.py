"""A table's tournament result from its scoreledger game's final standings.

Places are the game's ranks (shared places stay shared); when the game's tie-break settles a
shared first place (Trickerion: the player ahead in initiative, `Standings.winner`), the winner
is 1st and the others tied with them 2nd. Scores are the game's totals (Fame or VP).
Source: the issue's "the table's results come from its final standings (ranks and scores as
the game's rules give them, tie-break included)".
"""

from __future__ import annotations

from collections.abc import Sequence

from contracts.envelope import Payload
from contracts.tournament import (
    ResultLine,
    TableResultApproved,
    TableResultDisputed,
    TableResultReported,
)
from domain.errors import RuleViolation
from domain.standings_shapes import Standings
from domain.tournament.state import TableState, TournamentState


def results_from_game(game: Standings, players: tuple[str, ...]) -> tuple[ResultLine, ...]:
    """The result of the table seating `players` (seat order) from its game's standings.

    The game's players are matched to the table's by player id when the ids are the same set,
    else by seat (the game's seat k is `players[k - 1]`).

    Raises:
        RuleViolation: `tournament.game_not_final` (the game is in progress),
            `tournament.game_players` (the game's players do not match the table's).
    """
    if game.status != "final":
        raise RuleViolation(
            "tournament.game_not_final", f"game {game.game_id} is not final", "game_id"
        )
    ids = {line.player_id for line in game.players}
    by_id = ids == set(players)
    seats = sorted(line.seat for line in game.players)
    if not by_id and seats != list(range(1, len(players) + 1)):
        raise RuleViolation(
            "tournament.game_players",
            f"game {game.game_id}'s players {sorted(ids)} are not the table's {list(players)}",
            "game_id",
        )
    lines = []
    for line in game.players:
        place = line.rank
        if place == 1 and game.winner is not None and line.player_id != game.winner:
            place = 2
        pid = line.player_id if by_id else players[line.seat - 1]
        lines.append(ResultLine(player_id=pid, place=place, score=line.total))
    return tuple(lines)


def follow_up(
    state: TournamentState, table: TableState, game: Standings, r: int, t: int, actor: str
) -> tuple[str, list[Payload], tuple[str, ...]]:
    """What bringing table `t` of round `r` in line with its game's standings appends (the
    outcomes are those of `TournamentCases.result_from_game`): the outcome, the batch
    (empty: nothing) and the kinds the events' ids derive from.

    Raises:
        RuleViolation: the game's players are not the table's (`results_from_game`).
    """
    if game.status != "final":
        if table.status in ("reported", "approved"):
            reason = "the table's game is not final any more (a referee reopened it)"
            return (
                "held",
                [TableResultDisputed(round=r, table=t, by=actor, reason=reason)],
                ("held",),
            )
        return "waiting", [], ()
    results = results_from_game(game, table.players)
    if table.status == "disputed":
        return "waiting", [], ()
    if table.status == "approved":
        if _same(results, table.approved):
            return "unchanged", [], ()
        if state.judges:  # the table's token is the players': only a judge overturns a ruling
            reason = "the table's game changed after its approval; a judge rules"
            return (
                "held",
                [TableResultDisputed(round=r, table=t, by=actor, reason=reason)],
                ("held",),
            )
        ruling = TableResultApproved(round=r, table=t, judge=actor, results=results)
        return "approved", [ruling], ("approved",)
    if table.status == "reported" and _same(results, table.reported):
        return "unchanged", [], ()
    batch: list[Payload] = [
        TableResultReported(round=r, table=t, results=results, reported_by=actor)
    ]
    if state.settings.auto_approve_after_s == 0:
        batch.append(TableResultApproved(round=r, table=t, judge="auto"))
    outcome = "approved" if len(batch) == 2 else "reported"
    return outcome, batch, ("reported", "auto")[: len(batch)]


def _same(a: Sequence[object], b: Sequence[object] | None) -> bool:
    return b is not None and sorted(map(repr, a)) == sorted(map(repr, b))
