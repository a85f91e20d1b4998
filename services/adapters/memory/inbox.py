"""`InboxQueue` in memory: one stream and its consumer group as Redis keeps them (entries in id
order, the group's last delivered id, a pending-entries list with each entry's consumer and
delivery time), for the fast tests and an in-process pipeline. Streams of one `MemoryInbox`
are shared by its siblings. Idle times use `time.monotonic()`.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from services.adapters.pending_pages import OwnOrphans
from services.ports.inbox import Fields, GameOf, Held, StreamHealth


def _key(entry_id: bytes) -> tuple[int, int]:
    ms, _, n = entry_id.partition(b"-")
    return int(ms), int(n or 0)


def _now_ms() -> float:
    return time.monotonic() * 1000


@dataclass
class _Stream:
    """One stream: entries (insertion order is id order), the group's state."""

    entries: dict[bytes, Fields] = field(default_factory=dict)
    grouped: bool = False
    delivered: tuple[int, int] = (0, 0)
    pending: dict[bytes, tuple[str, float]] = field(default_factory=dict)  # id -> consumer, at
    seen: dict[str, float] = field(default_factory=dict)  # consumer -> last active (ms)
    last: tuple[int, int] = (0, 0)


class MemoryInboxQueue(OwnOrphans):
    """One stream `stream` of `streams` (shared with the siblings); `game_of`: an entry's
    game."""

    def __init__(
        self, stream: str, game_of: GameOf, streams: dict[str, _Stream] | None = None
    ) -> None:
        self.stream = stream
        self.game_of = game_of
        self.streams = {} if streams is None else streams
        self.s = self.streams.setdefault(stream, _Stream())

    def sibling(self, stream: str) -> MemoryInboxQueue:
        return MemoryInboxQueue(stream, self.game_of, self.streams)

    async def ensure_group(self) -> None:
        if not self.s.grouped:
            self.s.grouped, self.s.delivered = True, (0, 0)

    async def add(self, entries: Sequence[Fields]) -> list[bytes]:
        ids = []
        for fields in entries:
            ms = int(time.time() * 1000)
            last = self.s.last
            self.s.last = (ms, 0) if ms > last[0] else (last[0], last[1] + 1)
            entry_id = f"{self.s.last[0]}-{self.s.last[1]}".encode()
            self.s.entries[entry_id] = dict(fields)
            ids.append(entry_id)
        return ids

    def _touch(self, consumer: str) -> None:
        self.s.seen[consumer] = _now_ms()

    async def read_new(self, consumer: str, count: int) -> list[tuple[bytes, Fields]]:
        self._touch(consumer)
        fresh = [(i, f) for i, f in self.s.entries.items() if _key(i) > self.s.delivered]
        taken = fresh[:count]
        for entry_id, _ in taken:
            self.s.pending[entry_id] = (consumer, _now_ms())
        if taken:
            self.s.delivered = _key(taken[-1][0])
        return taken

    async def pending_older(
        self, game: str, entry_id: bytes, settled: Collection[bytes]
    ) -> list[Held]:
        bound = _key(entry_id)
        return [
            Held(i, consumer)
            for i, (consumer, _) in sorted(self.s.pending.items(), key=lambda p: _key(p[0]))
            if _key(i) < bound
            and i not in settled
            and i in self.s.entries
            and self.game_of(self.s.entries[i]) == game
        ]

    async def ack(self, ids: Sequence[bytes], delete: Sequence[bytes] = ()) -> None:
        for entry_id in ids:
            self.s.pending.pop(entry_id, None)
        for entry_id in delete:
            self.s.entries.pop(entry_id, None)

    async def hold(self, consumer: str, ids: Sequence[bytes]) -> None:
        self._touch(consumer)
        for entry_id in ids:
            if entry_id in self.s.pending:
                self.s.pending[entry_id] = (consumer, _now_ms())

    def _idle(self, entry_id: bytes) -> float:
        return _now_ms() - self.s.pending[entry_id][1]

    async def pending_of(
        self, consumer: str, idle_ms: int, count: int, after: bytes | None = None
    ) -> list[bytes]:
        low = _key(after) if after is not None else (-1, -1)
        ids = sorted(
            (i for i, (c, _) in self.s.pending.items() if c == consumer and _key(i) > low),
            key=_key,
        )
        return [i for i in ids if self._idle(i) >= idle_ms][:count]

    async def claim(
        self, consumer: str, ids: Sequence[bytes], idle_ms: int
    ) -> list[tuple[bytes, Fields]]:
        self._touch(consumer)
        taken = []
        for entry_id in ids:
            if entry_id not in self.s.pending or self._idle(entry_id) < idle_ms:
                continue
            if entry_id not in self.s.entries:  # deleted while pending: settled
                del self.s.pending[entry_id]
                continue
            self.s.pending[entry_id] = (consumer, _now_ms())
            taken.append((entry_id, self.s.entries[entry_id]))
        return taken

    async def claim_idle(
        self, consumer: str, idle_ms: int, count: int
    ) -> list[tuple[bytes, Fields]]:
        return await self.claim(consumer, sorted(self.s.pending, key=_key), idle_ms)

    async def drop_idle_consumers(self, keep: str, idle_ms: int) -> int:
        busy = {c for c, _ in self.s.pending.values()}
        gone = [
            c
            for c, at in self.s.seen.items()
            if c != keep and c not in busy and _now_ms() - at >= idle_ms
        ]
        for consumer in gone:
            del self.s.seen[consumer]
        return len(gone)

    async def trim(self, keep_s: float, now_ms: int, max_len: int | None) -> int:
        unsettled = [_key(i) for i in self.s.pending]
        unsettled += [_key(i) for i in self.s.entries if _key(i) > self.s.delivered]
        first = min(unsettled, default=(2**64, 0))
        bound = min(first, (now_ms - int(keep_s * 1000), 0))
        if max_len is not None and len(self.s.entries) > max_len:
            bound = first
        gone = [i for i in self.s.entries if _key(i) < bound]
        for entry_id in gone:
            del self.s.entries[entry_id]
        return len(gone)

    async def guard(self) -> StreamHealth:
        if not self.s.grouped:
            await self.ensure_group()
            return StreamHealth.LOST
        return StreamHealth.OK
