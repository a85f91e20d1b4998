"""Replays off the event loop, cached per (game, version): what a replay read costs once.

A replay (series, timeline, dispute, `?at_seq`, a ledger, an export, an audit page) parses and
folds the whole log: O(n) CPU. Run on the event loop it would stall every other request (the
liveness probe included, docs/decisions/0012-hot-reads-and-off-loop-replays.md: 16.9 s for `/series` of a 6,000-event game). A worker
thread is not enough: it holds the GIL, the loop waits up to the switch interval (5 ms) each
time it wants it back, and one long C call (a `json.dumps` of the answer, ~10 ms for 6,000
events) cannot be interrupted at all. So the parse and the work run in a worker process
(`ProcessPoolExecutor`, spawned once per process and shared, warmed at start-up), and the
result is kept per (what, game, version, arguments): events are immutable, so a game's
version names its log. Concurrent readers of one key share one computation. Given a
`LogSource`, the worker reads the log itself (its own client, opened once per worker), so the
parent ships a game id and a seq, not 2 MB of stored events through a pipe, and its loop does
nothing O(n) for a replay; without one (an in-memory log) the parent reads it, in pages of
`READ_PAGE` events so that no single reply (parsed on the loop) holds the loop long. A work
function may return JSON bytes (`work.json_bytes`) so that a long answer is not serialized on
the loop either.

A work function crosses the process boundary by name: it must be a module-level function,
its arguments and result picklable. An exception that does not survive pickling comes back
as `services.runtime.worker.ReplayFailed` (its type and message), never as a broken pool.
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (replays and exports O(n) per request, off the event loop, cached).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from domain.fold import GameState
from services.ports.eventlog import EventLog
from services.runtime import pool
from services.runtime.fairqueue import FairQueue, Limits
from services.runtime.sizedcache import ByteLRU, game_bytes, state_bytes
from services.runtime.worker import collector_paused, portable
from services.usecases.readmodels.snapshots import Unfinished

T = TypeVar("T")

READ_PAGE = 1000
"""Events per log read of a replay (about 2-3 ms of reply parsing on the loop each)."""

Work = Callable[..., T]
"""`work(events, *args)`: a replay of a game's events (seq order); pure, may be CPU-heavy; a
module-level function (it is sent to the worker by name)."""

Job = Callable[..., Any]
"""`job(read, game_id, upto, work, args)`: in the worker, what a replay reads and hands to
`work` instead of the events 1..upto (e.g. a state from `snapshots`); `read(first, last)`
returns stored envelopes. Picklable (a module-level function or a `functools.partial` of
one)."""

LOCAL = "local"
"""The client of a replay asked by no remote client (the CLI, a test): one client of the queue."""


@dataclass(frozen=True)
class LogSource:
    """How a worker process opens the event log itself: `open(*args)`, a module-level function
    (sent by name) returning an `EventLog` whose client is made in the worker; called once per
    worker process and kept (sources compare by value). Picklable arguments only."""

    open: Callable[..., EventLog]
    args: tuple[Any, ...] = ()


@dataclass(eq=False, slots=True)
class Replays:
    """Runs replays of a game's stored log in the worker processes and keeps their results.

    Args:
        log: the event log (raw reads; the parse happens in the worker).
        capacity: results kept (LRU); a result is shared between readers, never mutated.
        executor: where replays run (default: the process-wide pool of `shared_pool`).
        max_bytes: also at most this many estimated bytes of results: JSON / text by its
            length (a 6,000-event series is 0.5 MB, a timeline 2.7 MB: nothing else of the
            replay is kept), any other result as a folded game of the events it replayed
            (`sizedcache.game_bytes`, 21 MB for 6,000 events) or its own size if larger.
        source: how the workers open the same log themselves (None: the parent reads it and
            sends the stored events; the only way for an in-memory log).
        queue: where a replay not cached waits its turn (`fairqueue.FairQueue`; default: one
            slot per worker process, the default limits).
        stamp: a game's names stamp (`usecases.names.NamedEventLog.names_stamp`), part of a
            result's key: a forget changes no version, and a result kept from before it holds
            the forgotten name (None: results are keyed by version alone).
    """

    log: EventLog
    capacity: int = 256
    executor: Executor | None = None
    max_bytes: InitVar[int] = 32 * 1024 * 1024
    source: LogSource | None = None
    queue: FairQueue = field(default_factory=lambda: FairQueue(Limits(slots=pool.PROCESSES)))
    """Where replays not cached wait their turn (`fairqueue`): its slots should be the
    pool's workers, so that they wait there, fairly, and not in the pool's FIFO."""
    stamp: Callable[[str], Awaitable[Hashable]] | None = None
    # key -> (result, events replayed), bounded by results and bytes (docs/decisions/0011-faults-are-answered-not-crashed.md)
    _results: ByteLRU[Hashable, tuple[Any, int]] = field(init=False)
    _running: dict[Hashable, asyncio.Future[Any]] = field(init=False, default_factory=dict)

    def __post_init__(self, max_bytes: int) -> None:
        self._results = ByteLRU(max_bytes, lambda item: _estimate(*item), self.capacity)

    def warm(self) -> None:
        """Start the worker processes now (their imports take about a second, opening the
        `source` too), so the first replay does not wait for them; returns at once. With the
        shared pool, this reader holds it (`hold_shared_pool`) until its `stop`."""
        if self.executor is None:
            pool.hold_shared_pool()
        self._pool().submit(int)  # a no-op: the spawn runs `_ready` first

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Let go of the shared pool held by `warm` (once per `warm`): the last holder's stop
        ends its worker processes (`let_go_shared_pool`, at most about `timeout_s` + 1 seconds,
        in a thread: the event loop goes on meanwhile). A given `executor` is its owner's to
        stop: nothing is done then."""
        if self.executor is None:
            await asyncio.to_thread(pool.let_go_shared_pool, timeout_s)

    def _pool(self) -> Executor:
        return self.executor or shared_pool(self.source)

    async def run(
        self,
        what: Hashable,
        game_id: str,
        version: int,
        work: Work[T],
        args: tuple[Any, ...] = (),
        upto: int | None = None,
        *,
        client: str = LOCAL,
        job: Job | None = None,
    ) -> T:
        """`work(events 1..upto, *args)` (the whole log at `version` when `upto` is None), or
        with `job`, `job(read, game_id, upto, work, args)`; computed once per `(what, game_id,
        version, upto)`, in `client`'s turn of the queue.

        Raises: what `work` raises (nothing is cached then), or `ReplayFailed`; storage errors;
            `ReplayRefused` (the queue's bounds, for this client or all).
        """
        stamp = None if self.stamp is None else await self.stamp(game_id)
        key = (what, game_id, version, upto, stamp)
        hit = self._results.get(key)
        if hit is not None:
            return hit[0]  # type: ignore[no-any-return]
        running = self._running.get(key)
        if running is None:

            def compute() -> Awaitable[T]:
                return self._compute(key, game_id, version, work, args, upto, job)

            running = asyncio.ensure_future(self._in_turns(client, game_id, compute))
            self._running[key] = running
            running.add_done_callback(lambda _: self._running.pop(key, None))
        return await asyncio.shield(running)

    async def _in_turns(self, client: str, game_id: str, compute: Callable[[], Awaitable[T]]) -> T:
        """`compute` in `client`'s turns of the queue: again in a later turn while it answers
        `Unfinished` (a job folds at most a slice of a long game, so it never holds a worker
        long, and other clients' jobs run between its slices)."""
        while True:
            result = await self.queue.run(client, game_id, compute)
            if not isinstance(result, Unfinished):
                return result

    async def _compute(
        self,
        key: Hashable,
        game_id: str,
        version: int,
        work: Work[T],
        args: tuple[Any, ...],
        upto: int | None,
        job: Job | None = None,
    ) -> T:
        last = upto if upto is not None else version
        call: tuple[Any, ...]
        if job is not None and self.source is not None:
            call = (_job_stored, job, self.source, game_id, last, work, args)
        elif job is not None:
            call = (_job_given, job, await read_paged(self.log, game_id, last), game_id, last)
            call += (work, args)
        elif self.source is not None:
            call = (_replay_stored, self.source, game_id, last, work, args)
        else:
            call = (_replay, work, await read_paged(self.log, game_id, last), args)
        loop = asyncio.get_running_loop()
        try:
            result: T = await loop.run_in_executor(self._pool(), *call)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool, once
            pool.drop_pool()
            result = await loop.run_in_executor(self._pool(), *call)
        if not isinstance(result, Unfinished):
            self._results.put(key, (result, last))
        return result


async def read_paged(
    log: EventLog, game_id: str, upto: int, page: int = READ_PAGE, first: int = 1
) -> list[bytes]:
    """The stored envelopes of seqs `first`..`upto`, read `page` seqs at a time."""
    raw: list[bytes] = []
    for start in range(first, upto + 1, page):
        raw += await log.read_raw(game_id, start, min(upto, start + page - 1))
    return raw


def _estimate(result: Any, events: int) -> int:
    """The bytes a kept result holds: JSON / text its own (docs/decisions/0012-hot-reads-and-off-loop-replays.md: a long game's series is
    0.5 MB, estimated as a folded game it was 21 MB and a 32 MB cache kept one), anything else
    at least a folded game of the `events` it replayed (docs/decisions/0011-faults-are-answered-not-crashed.md)."""
    if isinstance(result, bytes | str):
        return sys.getsizeof(result)
    # its text counted too (docs/decisions/0011-faults-are-answered-not-crashed.md: long non-Latin text)
    if isinstance(result, GameState):
        return max(game_bytes(events), state_bytes(result))
    return game_bytes(events)


def shared_pool(source: LogSource | None = None) -> ProcessPoolExecutor:
    """The process-wide replay pool (`services.runtime.pool.shared_pool`), each worker warmed
    by `_ready(source)` as it starts (the first caller's source; another source is opened at
    its first replay)."""
    return pool.shared_pool(_ready, source)


EXAMPLES = Path(__file__).resolve().parents[3] / "contracts" / "examples"


def _ready(source: LogSource | None = None) -> None:
    """In a worker, once (after `services.runtime.worker.start` bound it to its parent):
    import the work functions, open `source`'s log and replay the bundled example games, so
    the first real replay finds the parsers, rulesets and client built (a missing example is
    skipped: it only warms)."""
    from services.usecases.readmodels import work

    if source is not None:  # a failure here would break the pool: the first replay reports it
        with contextlib.suppress(Exception):
            _open(source)
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        work.series_json([parse_event_json(line) for line in lines])


_opened: tuple[LogSource, EventLog, asyncio.AbstractEventLoop] | None = None
"""In a worker: the log of the last `LogSource` and the event loop its client lives on."""


def _open(source: LogSource) -> tuple[EventLog, asyncio.AbstractEventLoop]:
    """In a worker: `source`'s log and the loop its client runs on, made once per source."""
    global _opened
    if _opened is None or _opened[0] != source:
        if _opened is not None:
            _opened[2].close()
        _opened = (source, source.open(*source.args), asyncio.new_event_loop())
    return _opened[1], _opened[2]


def _replay_stored(
    source: LogSource, game_id: str, upto: int, work: Work[T], args: tuple[Any, ...]
) -> T:
    """In the worker: read seqs 1..`upto` of the game from `source` (opened once), then
    `_replay`. Storage errors come back as themselves (or as `ReplayFailed`)."""
    with collector_paused():
        try:
            log, loop = _open(source)
            raw = loop.run_until_complete(read_paged(log, game_id, upto))
        except Exception as error:
            raise portable(error) from None
        return _replay(work, raw, args)


def _job_stored(
    job: Job, source: LogSource, game_id: str, upto: int, work: Work[T], args: tuple[Any, ...]
) -> T:
    """In the worker: `job(read, ...)` with `read` on `source`'s log (opened once). Storage
    errors come back as themselves (or as `ReplayFailed`)."""
    with collector_paused():
        try:
            log, loop = _open(source)

            def read(first: int, last: int) -> list[bytes]:
                return loop.run_until_complete(read_paged(log, game_id, last, first=first))

            return job(read, game_id, upto, work, args)  # type: ignore[no-any-return]
        except Exception as error:
            raise portable(error) from None


def _job_given(
    job: Job, raw: list[bytes], game_id: str, upto: int, work: Work[T], args: tuple[Any, ...]
) -> T:
    """In the worker: `job(read, ...)` with `read` on the parent's events 1..`upto` (`raw`)."""
    with collector_paused():
        try:
            return job(lambda first, last: raw[first - 1 : last], game_id, upto, work, args)  # type: ignore[no-any-return]
        except Exception as error:
            raise portable(error) from None


def _replay(work: Work[T], raw: list[bytes], args: tuple[Any, ...]) -> T:
    """In the worker: parse the stored envelopes and run `work` on them."""
    with collector_paused():
        events: list[Envelope] = [parse_event_json(data) for data in raw]
        try:
            return work(events, *args)
        except Exception as error:
            raise portable(error) from None
