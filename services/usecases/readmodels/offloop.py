"""Replays off the event loop, cached per (game, version): what a replay read costs once.

A replay (series, timeline, dispute, `?at_seq`, a ledger, an export) parses and folds the
whole log: O(n) CPU. Run on the event loop it would stall every other request (the liveness
probe included, issue 9: 16.9 s for `/series` of a 6,000-event game), so the parse and the
work run in a worker thread (`anyio.to_thread`, a small limiter), and the result is kept per
(what, game, version, arguments): events are immutable, so a game's version names its log.
Concurrent readers of one key share one computation. The log is read in pages of `READ_PAGE`
events, so no single reply (its parse into Python objects runs on the event loop) holds the
loop for long; a work function may return JSON bytes (`json_bytes`) so that a long answer is
not serialized on the loop either.
Source: issue 9 (replays and exports O(n) per request, off the event loop, cached).
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from services.ports.eventlog import EventLog

T = TypeVar("T")

READ_PAGE = 1000
"""Events per log read of a replay (about 2-3 ms of reply parsing on the loop each)."""

Work = Callable[[Sequence[Envelope]], T]
"""A replay of a game's events (seq order); pure, may be CPU-heavy."""


class Replays:
    """Runs replays of a game's stored log in worker threads and keeps their results.

    Args:
        log: the event log (raw reads; the parse happens in the worker).
        capacity: results kept (LRU); a result is shared between readers, never mutated.
        workers: replays running at once (the rest wait; the event loop never does).
    """

    def __init__(self, log: EventLog, capacity: int = 256, workers: int = 2) -> None:
        self.log = log
        self.capacity = capacity
        self._limiter = anyio.CapacityLimiter(workers)
        self._results: OrderedDict[Hashable, Any] = OrderedDict()
        self._running: dict[Hashable, asyncio.Future[Any]] = {}

    async def run(
        self, what: Hashable, game_id: str, version: int, work: Work[T], upto: int | None = None
    ) -> T:
        """`work(events 1..upto)` (the whole log at `version` when `upto` is None), computed
        once per `(what, game_id, version, upto)`.

        Raises: what `work` raises (nothing is cached then); storage errors.
        """
        key = (what, game_id, version, upto)
        if key in self._results:
            self._results.move_to_end(key)
            return self._results[key]  # type: ignore[no-any-return]
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(self._compute(key, game_id, version, work, upto))
            self._running[key] = running
            running.add_done_callback(lambda _: self._running.pop(key, None))
        return await asyncio.shield(running)

    async def _compute(
        self, key: Hashable, game_id: str, version: int, work: Work[T], upto: int | None
    ) -> T:
        raw = await read_paged(self.log, game_id, upto if upto is not None else version)

        def replay() -> T:
            return work([parse_event_json(data) for data in raw])

        result = await anyio.to_thread.run_sync(replay, limiter=self._limiter)
        self._results[key] = result
        while len(self._results) > self.capacity:
            self._results.popitem(last=False)
        return result


async def read_paged(log: EventLog, game_id: str, upto: int, page: int = READ_PAGE) -> list[bytes]:
    """The stored envelopes of seqs 1..`upto`, read `page` seqs at a time."""
    raw: list[bytes] = []
    for first in range(1, upto + 1, page):
        raw += await log.read_raw(game_id, first, min(upto, first + page - 1))
    return raw


def json_bytes(value: Any) -> bytes:
    """`value` as JSON the way FastAPI's `JSONResponse` renders it (UTF-8, compact), for a
    worker to serialize a long answer off the loop."""
    return json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")
