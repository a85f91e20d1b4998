"""`InboxQueue` on a Redis stream and its consumer group (`services.ports.inbox`).

* `pending_older`: XPENDING of the group (up to `PEL_SCAN` rows older than the entry), the game
  of each pending entry read once with XRANGE (pipelined) and cached by id.
* `hold`: XCLAIM JUSTID with min-idle 0 (resets the idle time, the entries stay the consumer's).
* `own_orphans`: pages of `pending_of` (XPENDING ... IDLE <ms> <consumer>), each page taken
  again with `claim` (XCLAIM; `services.adapters.pending_pages`); an entry deleted while
  pending is dropped from the PEL by Redis 7 (or returned without fields by Redis 6: acked).
* `claim_idle`: XAUTOCLAIM from `0-0` until the scan wraps.
* `ack`: XDEL of the entries to delete, then XACK (one key each: no cross-slot command).
* `trim`: `services.adapters.redis.retention.trim_inbox` (settled entries only).
* `guard`: XINFO GROUPS (the group still there?), then the exhausted-stream renewal script
  (`services.adapters.redis.exhausted`).

Every Redis error comes out as the ports' `StoreError` / `StoreUnavailable` (the client's).
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (the inbox's order and reclaiming); Redis XPENDING, XCLAIM, XAUTOCLAIM,
XINFO GROUPS / CONSUMERS.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from redis.exceptions import ResponseError

from services.adapters.pending_pages import OwnOrphans
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.exhausted import ExhaustedStreams
from services.adapters.redis.retention import trim_inbox
from services.ports.inbox import GROUP, Fields, GameOf, Held, StreamHealth

PEL_SCAN = 10_000
"""Most PEL rows read to answer `pending_older` (the PEL holds a few batches per replica)."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _nogroup(error: ResponseError) -> bool:
    return "NOGROUP" in str(error) or "no such key" in str(error)


class RedisInboxQueue(OwnOrphans):
    """One inbox stream `stream` of `client` and its group `group` (`game_of`: an entry's
    game, for `pending_older`)."""

    def __init__(
        self, client: RedisClient, stream: str, game_of: GameOf, group: str = GROUP
    ) -> None:
        self.client = client
        self.stream = stream
        self.group = group
        self.game_of = game_of
        self._games: dict[bytes, str | None] = {}
        self._exhausted: ExhaustedStreams | None = None  # made on first use

    def sibling(self, stream: str) -> RedisInboxQueue:
        return RedisInboxQueue(self.client, stream, self.game_of, self.group)

    async def ensure_group(self) -> None:
        try:
            await self.client.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def add(self, entries: Sequence[Fields]) -> list[bytes]:
        async with self.client.pipeline(transaction=False) as pipe:
            for fields in entries:
                pipe.xadd(self.stream, fields)  # type: ignore[arg-type]
            ids: Any = await pipe.execute()
        return [bytes(i) for i in ids]

    async def read_new(self, consumer: str, count: int) -> list[tuple[bytes, Fields]]:
        reply: Any = await self.client.xreadgroup(
            self.group, consumer, {self.stream: ">"}, count=count
        )
        return [(bytes(i), f) for _, entries in reply or [] for i, f in entries]

    async def pending_older(
        self, game: str, entry_id: bytes, settled: Collection[bytes]
    ) -> list[Held]:
        try:
            rows: Any = await self.client.xpending_range(
                self.stream, self.group, min="-", max=b"(" + entry_id, count=PEL_SCAN
            )
        except ResponseError as error:
            if _nogroup(error):
                return []
            raise
        held = [(bytes(r["message_id"]), _text(r["consumer"])) for r in rows]
        held = [(i, c) for i, c in held if i not in settled]
        await self._learn([i for i, _ in held if i not in self._games])
        return [Held(i, c) for i, c in held if self._games.get(i) == game]

    async def _learn(self, ids: list[bytes]) -> None:
        """Read and cache the game of each of `ids` (one pipeline)."""
        if not ids:
            return
        if len(self._games) > 10 * PEL_SCAN:
            self._games.clear()
        async with self.client.pipeline(transaction=False) as pipe:
            for entry_id in ids:
                pipe.xrange(self.stream, entry_id, entry_id, count=1)
            replies: Any = await pipe.execute()
        for entry_id, reply in zip(ids, replies, strict=True):
            self._games[entry_id] = self.game_of(reply[0][1]) if reply and reply[0][1] else None

    async def ack(self, ids: Sequence[bytes], delete: Sequence[bytes] = ()) -> None:
        # deleted first: a crash between the two leaves a settled entry pending without its
        # fields (a claim settles it: module docstring), never one kept with a name
        # (docs/forget.md)
        if delete:
            await self.client.xdel(self.stream, *delete)
        if ids:
            await self.client.xack(self.stream, self.group, *ids)

    async def hold(self, consumer: str, ids: Sequence[bytes]) -> None:
        if ids:
            await self.client.xclaim(
                self.stream, self.group, consumer, 0, list[Any](ids), justid=True
            )

    async def pending_of(
        self, consumer: str, idle_ms: int, count: int, after: bytes | None = None
    ) -> list[bytes]:
        rows: Any = await self.client.xpending_range(
            self.stream,
            self.group,
            min="-" if after is None else b"(" + after,
            max="+",
            count=count,
            consumername=consumer,
            idle=idle_ms or None,
        )
        return [bytes(r["message_id"]) for r in rows]

    async def claim(
        self, consumer: str, ids: Sequence[bytes], idle_ms: int
    ) -> list[tuple[bytes, Fields]]:
        if not ids:
            return []
        claimed: Any = await self.client.xclaim(
            self.stream, self.group, consumer, idle_ms, list[Any](ids)
        )
        return await self._live(claimed)

    async def _live(self, claimed: list[Any]) -> list[tuple[bytes, Fields]]:
        """The claimed entries that still have fields; the others (deleted) acked."""
        empty = [i for i, f in claimed if not f]
        if empty:
            await self.client.xack(self.stream, self.group, *empty)
        return [(bytes(i), f) for i, f in claimed if f]

    async def claim_idle(
        self, consumer: str, idle_ms: int, count: int
    ) -> list[tuple[bytes, Fields]]:
        taken: list[tuple[bytes, Fields]] = []
        start: Any = "0-0"
        while True:
            reply: Any = await self.client.xautoclaim(
                self.stream, self.group, consumer, idle_ms, start_id=start, count=count
            )
            start = reply[0]
            taken += await self._live(reply[1])
            if start in (b"0-0", "0-0"):
                return taken

    async def drop_idle_consumers(self, keep: str, idle_ms: int) -> int:
        rows: Any = await self.client.xinfo_consumers(self.stream, self.group)
        dropped = 0
        for row in rows:
            name = _text(row["name"])
            if name != keep and int(row["pending"]) == 0 and int(row["idle"]) >= idle_ms:
                await self.client.xgroup_delconsumer(self.stream, self.group, name)
                dropped += 1
        return dropped

    async def trim(self, keep_s: float, now_ms: int, max_len: int | None) -> int:
        return await trim_inbox(self.client, self.stream, self.group, keep_s, now_ms, max_len)

    async def guard(self) -> StreamHealth:
        if not await self._group_exists():
            await self.ensure_group()
            return StreamHealth.LOST
        if self._exhausted is None:
            self._exhausted = ExhaustedStreams(self.client)
        state = await self._exhausted.renew_if_exhausted(self.stream, self.group)
        return {0: StreamHealth.OK, -1: StreamHealth.EXHAUSTED}.get(state, StreamHealth.RENEWED)

    async def _group_exists(self) -> bool:
        try:
            groups: Any = await self.client.xinfo_groups(self.stream)
        except ResponseError as error:
            if "no such key" in str(error).lower():
                return False
            raise
        return any(_text(g.get("name")) == self.group for g in groups)
