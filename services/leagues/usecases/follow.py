"""Leagues follow their tournaments: when a table of a tournament is approved (or an approved
table disputed) after a league added that tournament, the league takes the tournament's
results again.

A league's addition carries the results it read (`league.tournament_added`), so a replay of
the league never reads a source again; following appends a new addition, never edits one, so
the league's replay shows the standings before and after the late approval. The append is
the league's own (`Leagues.add_tournament`) under the league's stored digest, with an
idempotency key derived from the tournament's version: two processes following the same
approval append it once. Cost: each approval reads the `scan` most recently created leagues'
streams once (a league that never added the tournament is only read). Source:
docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from contracts.league import TournamentAdded
from contracts.tournament import TableResultApproved, TableResultDisputed, TournamentEnvelope
from services.leagues.usecases.stream import Leagues, UnknownLeague
from services.usecases.refusal import Refusal

log = structlog.get_logger("leagues")


def moves_leagues(batch: Sequence[TournamentEnvelope]) -> bool:
    """True when `batch` changes what a league reads of the tournament: a table approved, or
    disputed (held out)."""
    return any(isinstance(e.payload, TableResultApproved | TableResultDisputed) for e in batch)


class LeagueFollow:
    """Re-adds a changed tournament to every league holding it (of the `scan` most recent)."""

    def __init__(self, leagues: Leagues, scan: int = 1000) -> None:
        self.leagues = leagues
        self.scan = scan

    async def tournament_changed(
        self, tournament_id: str, batch: Sequence[TournamentEnvelope]
    ) -> list[str]:
        """After `batch` was appended to the tournament: the ids of the leagues that took its
        results again (none when `batch` moves no league). A league that refuses the new
        results (e.g. `league.nothing_played` after the last approved table was disputed)
        keeps its earlier addition; the refusal is logged. Raises only storage errors."""
        if not batch or not moves_leagues(batch):
            return []
        version = batch[-1].seq
        moved: list[str] = []
        for league_id in await self.leagues.log.streams(self.scan):
            try:
                state = await self.leagues.state(league_id)
            except UnknownLeague:
                continue
            added = state.additions.get(f"tournament:{tournament_id}")
            if added is None or not isinstance(added.payload, TournamentAdded):
                continue
            if added.payload.at_seq >= version:
                continue  # it read this version (or a later one) already
            credential = await self.leagues.log.digest(league_id)
            if credential is None:
                continue
            try:
                await self.leagues.add_tournament(
                    league_id, credential, tournament_id, key=f"follow:{tournament_id}@{version}"
                )
            except Refusal as refused:
                log.warning(
                    "league.follow_refused",
                    league_id=league_id,
                    tournament_id=tournament_id,
                    rule=refused.rule,
                )
                continue
            moved.append(league_id)
        return moved
