"""Auto-approval on a timer: a reported table result whose approval window
(`auto_approve_after_s`) has passed is approved, with nobody writing to the tournament.

Each report schedules its due time (`Tournaments._schedule`, the `ApprovalSchedule` port). A
`tick` claims at most `batch` due entries (leased for `lease_s`: a process that dies leaves
them to the next claim after the lease), runs `Tournaments.approve_due` once per tournament
claimed (which also closes the round when its last table is approved), and forgets the
entries it settled. Two processes ticking at once are safe: a claim hands an entry to one of
them, and `approve_due` is idempotent anyway (its events' ids are derived from the report they
approve; an expected-version conflict means someone else appended, and the re-check finds the
table approved). Rule: the tournament's `auto_approve_after_s` (contracts/tournament.py).
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field

import structlog

from services.tournaments.ports.approvals import ApprovalSchedule, DueEntry
from services.tournaments.usecases.stream import Tournaments, UnknownTournament

log = structlog.get_logger("tournaments")


@dataclass(frozen=True, slots=True)
class Tick:
    """What one tick did: `claimed` entries, `approved` (tournament, round, table) triples,
    `failed` tournaments (their entries come back after the lease)."""

    claimed: int
    approved: tuple[tuple[str, int, int], ...]
    failed: tuple[str, ...]


@dataclass(eq=False, slots=True)
class ApprovalTimer:
    """Approves due results of every tournament, a bounded batch per `tick`."""

    tournaments: Tournaments
    schedule: ApprovalSchedule
    batch: int = 20
    lease_s: InitVar[float] = 30.0
    lease_ms: int = field(init=False)  # the claim lease, in milliseconds

    def __post_init__(self, lease_s: float) -> None:
        self.lease_ms = int(lease_s * 1000)

    async def tick(self) -> Tick:
        """Claim up to `batch` entries due now (the tournaments' clock), approve what is due
        in their tournaments, forget the entries settled. Raises only the schedule's own
        storage errors (a tournament that fails, a `VersionConflict` after the retries or a
        store fault, is logged and retried after the lease)."""
        now_ms = int(self.tournaments.now().timestamp() * 1000)
        claimed = await self.schedule.claim(now_ms, self.batch, self.lease_ms)
        by_tournament: dict[str, list[DueEntry]] = {}
        for entry in claimed:
            by_tournament.setdefault(entry.tournament_id, []).append(entry)
        approved: list[tuple[str, int, int]] = []
        failed: list[str] = []
        settled: list[DueEntry] = []
        for tid, entries in by_tournament.items():
            try:
                pairs = await self._approve(tid)
            except Exception as error:  # one tournament's failure must not stop the others'
                log.warning("tournament.auto_approval_failed", tournament_id=tid, error=repr(error))
                failed.append(tid)
                continue
            approved += [(tid, r, t) for r, t in pairs]
            settled += entries
        await self.schedule.done(settled)
        if approved:
            log.info("tournament.auto_approved", tables=len(approved))
        return Tick(len(claimed), tuple(approved), tuple(failed))

    async def _approve(self, tournament_id: str) -> list[tuple[int, int]]:
        """`approve_due` with the tournament's stored digest (a tournament never created:
        nothing to approve)."""
        credential = await self.tournaments.log.digest(tournament_id)
        try:
            return await self.tournaments.approve_due(tournament_id, credential)
        except UnknownTournament:
            return []
