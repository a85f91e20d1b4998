"""The league-log port: each league's append-only event stream, with the tournament log's
append contract (expected version per event, all or nothing, idempotent event ids, the
organiser token's digest stored by the creating append and required by every later one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from contracts.league import LeagueEnvelope
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendResult

__all__ = ["AppendResult", "CredentialMismatch", "LeagueLog", "VersionConflict"]


class LeagueLog(Protocol):
    """Append and read league streams (`adapters.memory.leagues`, `adapters.redis.leagues`)."""

    async def append(
        self,
        league_id: str,
        events: Sequence[LeagueEnvelope],
        credential: str | None = None,
    ) -> AppendResult:
        """Append `events` in order, all or nothing; stamps `recorded_at`.

        Raises:
            VersionConflict: an event's `seq - 1` is not the version reached; nothing written.
            CredentialMismatch: `credential` is not the stored digest (or the stream exists
                without one); nothing written.
            ValueError: an event's `league_id` is not `league_id`.
        """
        ...

    async def digest(self, league_id: str) -> str | None:
        """The organiser token's stored digest (None: no league, or none stored), for the
        doors' authorization check before anything else is read."""
        ...

    async def version(self, league_id: str) -> int:
        """The number of events stored (0: unknown league)."""
        ...

    async def read(
        self, league_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[LeagueEnvelope]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        ...
