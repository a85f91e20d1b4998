"""`ApprovalSchedule` in memory (tests, one process)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from services.tournaments.ports.approvals import DueEntry


@dataclass
class MemoryApprovalSchedule:
    """Entries (`DueEntry.member`) -> the time (ms) each is due next (its lease's end once
    claimed)."""

    entries: dict[str, int] = field(default_factory=dict)

    async def schedule(self, entry: DueEntry) -> None:
        """See `ApprovalSchedule.schedule`."""
        self.entries.setdefault(entry.member, entry.due_ms)

    async def claim(self, now_ms: int, limit: int, lease_ms: int) -> list[DueEntry]:
        """See `ApprovalSchedule.claim` (ties in time by name, as a Redis sorted set)."""
        due = sorted((at, m) for m, at in self.entries.items() if at <= now_ms)[:limit]
        for _, member in due:
            self.entries[member] = now_ms + lease_ms
        return [DueEntry.of(member) for _, member in due]

    async def done(self, entries: Sequence[DueEntry]) -> None:
        """See `ApprovalSchedule.done`."""
        for entry in entries:
            self.entries.pop(entry.member, None)
