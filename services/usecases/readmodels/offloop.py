"""Replays off the event loop, cached per (game, version): what a replay read costs once.

A replay (series, timeline, dispute, `?at_seq`, a ledger, an export) parses and folds the
whole log: O(n) CPU. Run on the event loop it would stall every other request (the liveness
probe included, issue 9: 16.9 s for `/series` of a 6,000-event game), so the parse and the
work run in a worker thread (`anyio.to_thread`, a small limiter), and the result is kept per
(what, game, version, arguments): events are immutable, so a game's version names its log.
Source: issue 9 (replays and exports O(n) per request, off the event loop, cached).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from services.ports.eventlog import EventLog
from services.usecases.sizedcache import ByteLRU, game_bytes

T = TypeVar("T")

Work = Callable[[Sequence[Envelope]], T]
"""A replay of a game's events (seq order); pure, may be CPU-heavy."""


class Replays:
    """Runs replays of a game's stored log in worker threads and keeps their results.

    Args:
        log: the event log (raw reads; the parse happens in the worker).
        capacity: results kept (LRU); a result is shared between readers, never mutated.
        workers: replays running at once (the rest wait; the event loop never does).
        max_bytes: also at most this many estimated bytes of results (a result is estimated
            as a folded game of the events it replayed: `sizedcache.game_bytes`).
    """

    def __init__(
        self,
        log: EventLog,
        capacity: int = 256,
        workers: int = 2,
        max_bytes: int = 32 * 1024 * 1024,
    ) -> None:
        self.log = log
        self.capacity = capacity
        self._limiter = anyio.CapacityLimiter(workers)
        # key -> (result, events replayed), bounded by results and bytes (issue #10)
        self._results: ByteLRU[Hashable, tuple[Any, int]] = ByteLRU(
            max_bytes, lambda item: game_bytes(item[1]), capacity
        )

    async def run(
        self, what: Hashable, game_id: str, version: int, work: Work[T], upto: int | None = None
    ) -> T:
        """`work(events 1..upto)` (the whole log at `version` when `upto` is None), computed
        once per `(what, game_id, version, upto)`.

        Raises: what `work` raises (nothing is cached then); storage errors.
        """
        key = (what, game_id, version, upto)
        hit = self._results.get(key)
        if hit is not None:
            return hit[0]  # type: ignore[no-any-return]
        raw = await self.log.read_raw(game_id, 1, upto if upto is not None else version)

        def replay() -> T:
            return work([parse_event_json(data) for data in raw])

        result = await anyio.to_thread.run_sync(replay, limiter=self._limiter)
        self._results.put(key, (result, len(raw)))
        return result
