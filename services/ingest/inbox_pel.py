"""The inbox group's pending entries (PEL): which games still have an unsettled entry, and the
reclaimer that takes entries no live consumer is working on. Both are per stream: the shared
inbox and each integration's own (`services.ingest.inbox_app`) have one each.

* `PendingGames.older(game, id)`: which entries of `game` older than `id` sit in the PEL (read
  but not acked), and with which consumer? The inbox asks before dead-lettering a refusal, so an entry
  that only conflicts because an earlier one of its game is still being worked on (by another
  replica, or by a consumer that died holding it) waits instead.
* `Reclaimer`: at start-up, before the consumer reads, `drain` settles its own PEL (a previous
  process of the same consumer name died holding it). Then, one task per replica, every
  `every_s` it settles (1) its own pending entries that nothing in this process works on, idle
  `ORPHAN_IDLE_MS` (a read whose reply was lost in a Redis restart), and (2) with XAUTOCLAIM, entries idle for `claim_idle_ms` in any consumer's PEL (a
  dead replica's). It also drops consumers with nothing pending that have been idle ten claim
  periods (names of replicas gone for good). Re-delivery is harmless: appends are idempotent by
  event id, dead letters are written once per entry id.
Source: issue 10; research/tech.md §1.3 (stranded PELs, XAUTOCLAIM); Redis XPENDING, XCLAIM,
XAUTOCLAIM, XINFO CONSUMERS.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import structlog
from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient

log = structlog.get_logger("inbox")

ORPHAN_IDLE_MS = 2000
"""An own pending entry idle this long that no task of this process works on is an orphan."""

PEL_SCAN = 10_000
"""Most PEL rows read to answer `PendingGames.older` (the PEL holds a few batches per replica)."""

Settle = Callable[[list[bytes], list[dict[bytes, bytes]]], Awaitable[None]]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _nogroup(error: ResponseError) -> bool:
    return "NOGROUP" in str(error) or "no such key" in str(error)


class PendingGames:
    """Answers "is an older entry of this game still pending?" from the group's PEL; the game
    of each pending entry (`game_of(fields)`) is cached by entry id."""

    def __init__(
        self,
        client: RedisClient,
        stream: str,
        group: str,
        game_of: Callable[[dict[bytes, bytes]], str | None],
    ) -> None:
        self.client = client
        self.stream = stream
        self.group = group
        self.game_of = game_of
        self._games: dict[bytes, str | None] = {}

    async def older(
        self, game: str, entry_id: bytes, settled: Collection[bytes]
    ) -> list[tuple[bytes, str]]:
        """The (id, consumer) of each entry of `game` with an id below `entry_id`, not in
        `settled` (decided but not acked yet by the caller), in the PEL. Empty without a group."""
        try:
            rows: Any = await self.client.xpending_range(
                self.stream, self.group, min="-", max=b"(" + entry_id, count=PEL_SCAN
            )
        except ResponseError as error:
            if _nogroup(error):
                return []
            raise
        held = [(bytes(r["message_id"]), r["consumer"]) for r in rows]
        held = [(i, c) for i, c in held if i not in settled]
        await self._learn([i for i, _ in held if i not in self._games])
        return [(i, _text(c)) for i, c in held if self._games.get(i) == game]

    async def _learn(self, ids: list[bytes]) -> None:
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


class Reclaimer:
    """Settles pending entries no live consumer works on (see the module docstring).

    Args:
        settle: the inbox's `process` for a list of (id, fields), acking what it settles.
        in_flight: entry ids this process is working on right now (never taken again).
    """

    def __init__(
        self,
        client: RedisClient,
        stream: str,
        group: str,
        consumer: str,
        settle: Settle,
        in_flight: Collection[bytes],
        *,
        claim_idle_ms: int,
        count: int,
        every_s: float = 1.0,
    ) -> None:
        self.client = client
        self.stream = stream
        self.group = group
        self.consumer = consumer
        self.settle = settle
        self.in_flight = in_flight
        self.claim_idle_ms = claim_idle_ms
        self.count = count
        self.every_s = every_s
        self._passes = 0

    async def run(self) -> None:
        """Reclaim forever (a failed pass is logged and tried again `every_s` later)."""
        while True:
            try:
                await self.once()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning(
                    "inbox.reclaim_failed",
                    consumer=self.consumer,
                    inbox=self.stream,
                    error=repr(error),
                )
            await asyncio.sleep(self.every_s)

    async def drain(self) -> int:
        """Settle every entry of this consumer's own PEL (at start-up, before it reads anything
        new: a previous process of the same name died holding them). Returns how many."""
        return await self._own_orphans(0)

    async def once(self) -> int:
        """One pass: own orphans, then claimable entries of other consumers, then (every 60th
        pass) stale consumers dropped. Returns how many entries were settled."""
        self._passes += 1
        taken = await self._own_orphans(ORPHAN_IDLE_MS)
        start: Any = "0-0"
        while True:
            reply: Any = await self.client.xautoclaim(
                self.stream,
                self.group,
                self.consumer,
                self.claim_idle_ms,
                start_id=start,
                count=self.count,
            )
            start, claimed = reply[0], reply[1]
            taken += await self._settle(claimed)
            if start in (b"0-0", "0-0"):
                break
        if self._passes % 60 == 1:
            await self._drop_stale_consumers()
        return taken

    async def _own_orphans(self, idle_ms: int) -> int:
        taken = 0
        low: Any = "-"
        while True:
            rows: Any = await self.client.xpending_range(
                self.stream,
                self.group,
                min=low,
                max="+",
                count=self.count,
                consumername=self.consumer,
                idle=idle_ms or None,
            )
            if not rows:
                return taken
            low = b"(" + bytes(rows[-1]["message_id"])  # the next page: after this one
            ids = [bytes(r["message_id"]) for r in rows]
            ids = [i for i in ids if i not in self.in_flight]
            if ids:
                claimed: Any = await self.client.xclaim(
                    self.stream, self.group, self.consumer, idle_ms, list[Any](ids)
                )
                # not returned: deleted while pending (Redis 7 drops it from the PEL), or no
                # longer ours (claimed by another replica meanwhile)
                taken += await self._settle(claimed)
            if len(rows) < self.count:
                return taken

    async def _settle(self, claimed: list[Any]) -> int:
        entries = [(bytes(i), f) for i, f in claimed if f and bytes(i) not in self.in_flight]
        empty = [i for i, f in claimed if not f]
        if empty:
            await self.client.xack(self.stream, self.group, *empty)
        if entries:
            log.info(
                "inbox.reclaimed", consumer=self.consumer, inbox=self.stream, entries=len(entries)
            )
            await self.settle([i for i, _ in entries], [f for _, f in entries])
        return len(entries)

    async def _drop_stale_consumers(self) -> None:
        rows: Any = await self.client.xinfo_consumers(self.stream, self.group)
        stale_ms = 10 * self.claim_idle_ms
        for row in rows:
            name = _text(row["name"])
            if name != self.consumer and int(row["pending"]) == 0 and int(row["idle"]) > stale_ms:
                await self.client.xgroup_delconsumer(self.stream, self.group, name)
