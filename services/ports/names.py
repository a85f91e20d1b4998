"""The player-names port: each game's `player_id -> name`, kept beside its log (hot tier).

The log stores `*.game_started` with each name replaced by the player's id
(`contracts.names`); the names live here, so that forgetting a player changes no stored event
(but for a log written before names left it, whose start event `rewrite_start` stores again
in today's form).
A name is written once (`keep` never overwrites, so a retried creation cannot bring a
forgotten name back); `forget` replaces it by `contracts.names.FORGOTTEN` and, in the same
atomic step, replaces the name in the game's stored projection (its standings and view JSON
hold names). The archived copy of a game carries its names too (`SealedGame.names`).
Implementations: `adapters.redis.names.RedisPlayerNames` (a HASH in the game's slot),
`adapters.memory.names.MemoryPlayerNames`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Rendered:
    """A game's projection rendered again from its log with the names as they are after a
    forget: the standings JSON and view JSON of the fold at `seq` (every sentence that names
    a player, such as the view's `result` and the standings' `tie_break`, written anew)."""

    seq: int
    standings_json: str
    view_json: bytes


@dataclass(frozen=True, slots=True)
class Scrub:
    """What a forget writes over the game's stored projection: `rendered` (None: none) is
    stored as its standings and view if the stored projection is at `rendered.seq` (else the
    projector renders it), and each `(old, new)` text of `replacements` is replaced in the
    rest of it (standings and view too when `rendered` was not stored; the ledger). The
    replacements are not applied to a stored render: another player may have the same name."""

    replacements: Sequence[tuple[str, str]]
    rendered: Rendered | None = None


class PlayerNames(Protocol):
    """Names of a game's players in the hot tier."""

    async def names(self, game_id: str) -> dict[str, str]:
        """`player_id -> name` (`FORGOTTEN`: forgotten); empty for a game with none kept (an
        unknown game, a game in the archive only, or a log written with names inline)."""
        ...

    async def names_many(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        """`names` of each of `game_ids`, in their order, in one round trip (the projector
        asks once per batch for the games whose start event it folds)."""
        ...

    async def keep(self, game_id: str, names: Mapping[str, str]) -> None:
        """Store each `player_id -> name` not stored yet (a stored one, forgotten or not, is
        left as it is)."""
        ...

    async def forget(self, game_id: str, player_id: str, scrub: Scrub) -> bool:
        """Mark `player_id` forgotten, rewrite the game's stored projection as `scrub` says
        (`Scrub`: the rendered standings and view, the replaced texts), feed the game's last
        event again (the projector
        drops its cached fold of the game and refolds it from the log, names put back) and
        add a change notice at the projection's seq (live push renders the game again), in
        one atomic step. Idempotent. True: `rendered` was stored."""
        ...

    async def rewrite_start(self, game_id: str, data: bytes) -> bool:
        """Store `data` as the game's start event (seq 1): the same event in today's stored
        form, for a log written with names inline (`contracts.names.strip_names`). Atomic;
        the version and every other event unchanged. False: no such event, or already
        `data`."""
        ...


class SideNames(Protocol):
    """Names of the players a side stream (a tournament, a league) names, kept beside it by
    field (`contracts.names`: `<event_id>/<player_id> -> name`, and `!<player_id> ->
    pseudonym` once forgotten). Implementations: `adapters.redis.names.RedisSideNames` (a
    HASH in the stream's slot, and a SET of the streams that keep names),
    `adapters.memory.names.MemorySideNames`."""

    async def names(self, stream_id: str) -> dict[str, str]:
        """Every kept field of the stream (empty: none kept)."""
        ...

    async def keep(self, stream_id: str, names: Mapping[str, str]) -> list[str]:
        """Store each `field -> name` not stored yet, unless its player is forgotten (a
        stored one is left as it is, so a retried append cannot bring a forgotten name
        back); the fields this call stored."""
        ...

    async def drop(self, stream_id: str, fields: Sequence[str]) -> None:
        """Remove `fields` (those `keep` stored for an append then refused)."""
        ...

    async def forget(self, stream_id: str, player_id: str, pseudonym: str) -> bool:
        """Show `player_id` as `pseudonym`: their forgotten field set and every name kept for
        them replaced, in one atomic step. False: nothing changed (forgotten before)."""
        ...

    async def streams(self) -> list[str]:
        """The ids of every stream that keeps names (sorted)."""
        ...

    async def count(self, stream_id: str) -> int:
        """How many fields the stream keeps: what a reader shows changes only with the
        stream's version or with this count (a forget adds the forgotten field)."""
        ...

    async def rewrite(self, stream_id: str, data_by_seq: Mapping[int, bytes]) -> int:
        """Store each `seq -> data` as that event of the stream: the same events in today's
        stored form, for a stream written with names inline (`strip_side_names`). Atomic;
        the version and every other event unchanged. The number of events changed."""
        ...
