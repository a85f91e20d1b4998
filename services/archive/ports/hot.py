"""The hot-tier port: a whole game as Redis holds it (its log, event ids, token digest, index
entry and projection), read at once, removed at once, written back at once.

What sealing (`usecases.seal`) needs from the hot tier beyond the event log: a consistent
snapshot of one game, a removal that happens only if the game did not change since the
snapshot (a writer that appended meanwhile wins; nothing is lost), and a restore of an
archived game before an append reopens it. Every key of a game shares its shard's slot
(`services.adapters.redis.keys`), so each call is one atomic step on Redis Cluster too. Implementations:
`adapters.redis_hot.RedisHotGames`, `adapters.memory_hot.MemoryHotGames`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

from services.archive.ports.cold import ArchivedProjection, SealedGame


@dataclass(frozen=True, slots=True)
class HotGame:
    """One game's hot keys as read in one step: its stored events (seq order, byte for
    byte), the id of its last event, its token digest (None: none), its game-index score (ms
    of its first append; 0: not indexed), its projection (None: none stored), whether the
    projector holds it, and its players' names kept outside the log (`ports.names`)."""

    events: tuple[bytes, ...]
    head_event_id: str
    token_digest: str | None
    index_score: int
    projection: ArchivedProjection | None
    held: bool
    names: dict[str, str] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return len(self.events)


class HotGames(Protocol):
    """A game's every hot key, read, removed and restored atomically."""

    async def snapshot(self, game_id: str) -> HotGame | None:
        """The game's hot keys in one atomic read (None: no events in the hot tier)."""
        ...

    async def remove(self, game_id: str, snap: HotGame) -> bool:
        """Delete every hot key of the game (log, event ids, digest, index entry, projection,
        hold, names) if, and only if, it is still as `snap` (its `snapshot`) read it: the same
        version, the same last event and the same names (a forget came between the snapshot
        and the removal: the archived copy is older); False (nothing deleted) otherwise."""
        ...

    async def lock(self, game_id: str, owner: str, ttl_ms: int) -> bool:
        """Take the game's tier lock for `owner` (a unique token) unless another owner holds
        it: sealing and `forget` each hold it while they read and change the game's tiers,
        so they never interleave. It ends after `ttl_ms` ms (a holder that crashed); True:
        taken (or held by `owner` already, its time renewed)."""
        ...

    async def unlock(self, game_id: str, owner: str) -> None:
        """Release the game's tier lock if `owner` holds it (else nothing)."""
        ...

    async def restore(self, game: SealedGame) -> bool:
        """Write an archived game back (its log with the same entry ids, event ids, digest,
        index score, names) if the hot tier has no event of it, and feed its last event again so the
        projector refolds the game from its log (until then reads fall through to the
        archived projection); False (nothing written) when it has events.

        Raises: ValueError (an event that is not an envelope's JSON)."""
        ...

    def stray_projections(self) -> AsyncIterator[str]:
        """The ids of the games whose projection the hot tier holds while it holds none of
        their events (each once, in no order): a projection written back after the game was
        sealed, before the projector dropped sealed games' feed entries
        (`without_sealed`, docs/decisions/0013-archive-cold-tier.md). A game restored meanwhile may still be
        named; `drop_stray` checks again."""
        ...

    async def drop_stray(self, game_id: str) -> bool:
        """Delete the game's projection, ledger and hold if, and only if, the hot tier holds
        none of its events (one atomic step); True: deleted, False: it has events now (a
        write restored it) or nothing was there."""
        ...
