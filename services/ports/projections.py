"""The projections port: per-game projections and per-shard checkpoints, changed atomically.

A projection is what the projector last wrote for a game: its seq, status, game, the standings
JSON (`domain.standings.Standings`), the API view rendered from it (with the seq it is of),
`updated_at`, and `held` (the seq of an event the fold refused; later events of the game
wait). One `write` per feed batch changes every projection
of the batch, adds one change notice per changed game, and moves the shard checkpoint, all or
nothing; a batch at or before the stored checkpoint is skipped whole (exactly-once effect).
Source: docs/decisions/0004-projector-catch-up-subscription.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

START_ID = "0-0"
"""The checkpoint of a shard nothing was applied from yet (feed ids are `ms-n`)."""


def feed_id_key(feed_id: str) -> tuple[int, int]:
    """A feed entry id `ms-n` as a sortable pair."""
    ms, _, n = feed_id.partition("-")
    return int(ms), int(n or 0)


@dataclass(frozen=True, slots=True)
class ProjectionHead:
    """A game's stored projection seq (0: none), its held seq (None: not held) and the hold's
    reason JSON (`ProjectionOp.reason_json`; None when not held or not stored)."""

    seq: int
    held: int | None
    reason_json: str | None = field(default=None, compare=False)
    live: bool = field(default=False, compare=False)
    """The projection was stored by an append (`ports.eventlog.LiveProjection`), not by the
    projector or after a forget: its feed entries need no fold."""


def reaches(head: ProjectionHead, seq: int) -> bool:
    """A stored projection (`head`), stored by an append and not held, is of `seq` or later:
    the projector has nothing to fold for the game up to `seq`."""
    return head.live and head.held is None and head.seq >= seq


@dataclass(frozen=True, slots=True)
class ProjectionOp:
    """One game's change in a batch.

    `apply`: written only if the stored seq equals `base_seq` and the game is not held (else
    the op is skipped and its game reported); `hold`: marks the game held at `seq`.
    """

    kind: Literal["apply", "hold"]
    game_id: str
    base_seq: int
    seq: int
    status: str = ""
    game: str = ""
    standings_json: str = ""
    reason_json: str = ""
    """`hold`: why, as JSON `{"seq", "kind", "rule", "field", "message"}` (what `held` lists)."""
    view_json: bytes = b""
    """`apply`: the API view of the standings, rendered once by the projector (the
    `StandingsResponse` JSON without `checkpoint` and `updated_at`, `source` "projection"),
    stored with the seq it is of; b"": none (the stored view is removed, the readers render)."""


@dataclass(frozen=True, slots=True)
class HeldGame:
    """A game the projector holds: the seq of the event its rules refused and why."""

    game_id: str
    seq: int
    rule: str
    message: str = ""


def held_game(game_id: str, reason_json: bytes | str) -> HeldGame:
    """A `HeldGame` from a hold's reason JSON (`ProjectionOp.reason_json`)."""
    try:
        reason: Any = json.loads(reason_json)
        return HeldGame(game_id, int(reason["seq"]), str(reason["rule"]), str(reason["message"]))
    except (ValueError, KeyError, TypeError):
        return HeldGame(game_id, 0, "hold.unreadable", "the hold's reason is not JSON")


@dataclass(frozen=True, slots=True)
class ProjectionBatch:
    """What one feed batch of `shard` changes; `last_feed_id` becomes the checkpoint (`""`:
    the checkpoint stays, for a reseed from the game streams after the feed was trimmed)."""

    shard: int
    last_feed_id: str
    ops: Sequence[ProjectionOp] = field(default_factory=tuple)
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """`stale`: the checkpoint was already at or after the batch (nothing written);
    `skipped`: games whose op was skipped (another writer moved them)."""

    stale: bool
    skipped: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Advanced:
    """What `Projections.advance` did: `moved`, the checkpoint moved to the batch's last id;
    `stale`, it was at or after it already (nothing written); otherwise nothing was written
    and `heads` has every asked game's head as read (some game not reached)."""

    moved: bool
    stale: bool = False
    heads: Mapping[str, ProjectionHead] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StoredProjection:
    """A game's projection as stored, and the checkpoint of its shard (None: none yet)."""

    seq: int
    status: str
    game: str
    standings_json: str
    updated_at: str | None
    checkpoint: str | None = None


@dataclass(frozen=True, slots=True)
class StoredStandings:
    """What the standings GET needs, nothing else, as stored (bytes, not decoded): the API
    view the projector rendered (`ProjectionOp.view_json`, None when there is none of the
    stored seq: an older projector wrote it) or else the standings JSON (None when the view
    stands for it: not read), its `updated_at` and its shard's checkpoint (None: none yet)."""

    standings: bytes | None
    updated_at: str | None
    checkpoint: str | None
    view: bytes | None = None


class Projections(Protocol):
    """Implementations: `adapters.redis.projections.RedisProjections`, `adapters.memory`."""

    async def checkpoint(self, shard: int) -> str:
        """The shard's checkpoint (last applied feed id), `START_ID` when none."""
        ...

    async def heads(self, game_ids: Sequence[str]) -> list[ProjectionHead]:
        """The stored seq and held seq of each game, in order."""
        ...

    async def write(self, batch: ProjectionBatch, changes_maxlen: int) -> WriteOutcome:
        """Apply `batch` atomically (see the module docstring); each applied op adds a change
        notice (game, seq) to the shard's notices, capped near `changes_maxlen`."""
        ...

    async def advance(self, shard: int, last_feed_id: str, reached: Mapping[str, int]) -> Advanced:
        """Move the shard's checkpoint to `last_feed_id` (not "") if every game in `reached`
        (game -> the batch's last seq of it) has a projection an append stored, not held, of
        that seq or later (`ProjectionHead.live`), in one atomic step fenced as `write` is:
        the write of a batch the appends projected already
        (docs/profiles/projector-round-trips.md). Else nothing is written and the heads are
        returned. Raises: as `write`."""
        ...

    async def get(self, game_id: str) -> StoredProjection | None:
        """The game's projection with its shard checkpoint (one round trip), or None."""
        ...

    async def get_many(self, game_ids: Sequence[str]) -> list[StoredProjection | None]:
        """`get` of several games, in order (checkpoint left None)."""
        ...

    async def standings(self, game_id: str) -> StoredStandings | None:
        """The game's stored view (else standings) bytes, `updated_at` and shard checkpoint
        (one round trip), or None without standings: the hot read (docs/decisions/0012-hot-reads-and-off-loop-replays.md), no field
        decoded."""
        ...

    async def lag(self, cap: int) -> int:
        """Feed entries after the checkpoints, summed over shards, each shard counted to
        `cap + 1` at most."""
        ...

    async def held(self, limit: int) -> tuple[int, list[HeldGame]]:
        """How many games are held over all shards, and at most `limit` of them."""
        ...

    async def release(self, game_id: str, held_seq: int, seq: int, data: bytes) -> bool:
        """If the game is held at `held_seq`: clear the hold and, in the same step, feed the
        log's event `seq` (its last, `data`) again so the projector refolds the game from the
        log (`seq` 0: the log is empty, nothing is fed). False (nothing changed) when the game
        is not held at `held_seq`."""
        ...
