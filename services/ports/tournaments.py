"""The tournament-log port: each tournament's append-only event stream, a stream kind of its
own beside the games' (no shard feed, no game index: tournaments are few and are folded on
read).

Same append contract as `services.ports.eventlog.EventLog`: every event carries its expected
version (`seq - 1`), a batch is all or nothing, a known `event_id` is a duplicate (its original
seq, nothing written), and the creating append stores the organiser's token digest
(`credential`), which every later append must carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from contracts.tournament import TournamentEnvelope
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendResult

__all__ = ["AppendResult", "CredentialMismatch", "TournamentLog", "VersionConflict"]


class TournamentLog(Protocol):
    """Append and read tournament streams. Implementations: `adapters.memory.tournaments`."""

    async def append(
        self,
        tournament_id: str,
        events: Sequence[TournamentEnvelope],
        credential: str | None = None,
    ) -> AppendResult:
        """Append `events` in order, all or nothing; stamps `recorded_at`.

        Raises:
            VersionConflict: an event's `seq - 1` is not the version reached; nothing written.
            CredentialMismatch: `credential` is not the stored digest (or the stream exists
                without one); nothing written.
            ValueError: an event's `tournament_id` is not `tournament_id`.
        """
        ...

    async def digest(self, tournament_id: str) -> str | None:
        """The organiser token's stored digest (None: no tournament, or none stored), for the
        doors' authorization check before anything else is read."""
        ...

    async def version(self, tournament_id: str) -> int:
        """The number of events stored (0: unknown tournament)."""
        ...

    async def read(
        self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[TournamentEnvelope]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        ...
