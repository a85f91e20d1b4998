"""The approval-schedule port: when each reported table result of a tournament falls due for
auto-approval (`TournamentCreated.auto_approve_after_s` after its report), so a timer can
approve it with nobody writing to the tournament.

An entry is (tournament id, due time in epoch milliseconds); scheduling the same pair twice
keeps one entry. A claim leases the entries due: each is handed to one claimer and comes back
due `lease_ms` later unless the claimer marks it `done` (a claimer that died leaves it to the
next claim). Times are the caller's clock (the use case's `now`), never the store's, so a
test drives them with a controlled clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class DueEntry:
    """A tournament with a reported result due at `due_ms` (epoch milliseconds)."""

    tournament_id: str
    due_ms: int

    @property
    def member(self) -> str:
        """The entry's name in the store: `<due_ms>:<tournament id>` (one per pair)."""
        return f"{self.due_ms}:{self.tournament_id}"

    @classmethod
    def of(cls, member: str) -> DueEntry:
        """The entry named `member` (`member`'s inverse)."""
        due, _, tournament_id = member.partition(":")
        return cls(tournament_id, int(due))


class ApprovalSchedule(Protocol):
    """Entries due for auto-approval. Implementations: `adapters.memory_approvals`,
    `adapters.redis_approvals`."""

    async def schedule(self, entry: DueEntry) -> None:
        """Keep `entry` until it is claimed and done (again: nothing changes)."""
        ...

    async def claim(self, now_ms: int, limit: int, lease_ms: int) -> list[DueEntry]:
        """Up to `limit` entries due at `now_ms` (`due_ms <= now_ms`, and not leased past it),
        earliest first; each is leased until `now_ms + lease_ms` in the same atomic step, so
        two claimers never get the same entry within a lease."""
        ...

    async def done(self, entries: Sequence[DueEntry]) -> None:
        """Forget `entries` (unknown ones are ignored)."""
        ...
