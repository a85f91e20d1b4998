"""The write-credentials port: the digest of each game's write token, looked up before a write.

The digest is written by the event log, in the same atomic step as the game's creating append
(`EventLog.append(..., credential=digest)`); this port only reads. One lookup answers both
"what is the digest" and "does the game exist", so a write is authorized in one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class CredentialLookup:
    """A game's stored token digest (None: none stored) and its version (0: no events yet)."""

    digest: str | None
    version: int


class Credentials(Protocol):
    """Implementations: `adapters.redis.credentials.RedisCredentials`, `adapters.memory`."""

    async def lookup(self, game_id: str) -> CredentialLookup:
        """The game's digest and version, in one lookup."""
        ...

    async def lookup_many(self, game_ids: Sequence[str]) -> list[CredentialLookup]:
        """`lookup` of several games, in order (one round trip where the backend can)."""
        ...
