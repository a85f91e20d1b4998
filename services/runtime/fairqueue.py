"""Fair, bounded admission of replay jobs: who runs next on the replay workers, and who waits.

Every replay-class read (a replay at a seq, a dispute, a ledger, an audit page, the series,
the timeline, an export) that is not already cached or being computed becomes one job here
before it reaches a worker process (`offloop.Replays`). Without this, jobs ran in arrival
order with no bound: 8 clients asking for distinct `at_seq` of a 20,000-event game made a
91-event game's replay wait 12 s (an availability report on main 25106cc).

* **Slots**: at most `slots` jobs run at once (the worker processes); the rest wait here, not
  in the pool's own FIFO queue.
* **Round robin**: waiting jobs are kept per client and, within a client, per game; a free
  slot goes to the waiting client served least recently (one never served first, then the
  order they came in), and within it to its game served least recently. A client that floods
  gets one turn per round like any other, and a long game's jobs cannot hold back a small
  game's jobs of the same client (per-game fairness: several clients behind one address, a
  proxy without a trusted-proxy setting, are one client).
* **Bounds**: a client with `per_client` jobs waiting or running is refused with 429
  `replay.client_limit`; with `queued` jobs waiting in all, a new job is refused with 503
  `replay.queue_full`. Both carry a Retry-After estimate.
* **Deadline**: a job not answered within `deadline_s` of its arrival is answered 503
  `replay.deadline`: dropped if it still waits, never started past its deadline; one already
  running on a worker cannot be stopped there, so it runs on (holding its slot) and its result
  is kept by the caller's cache, where a retry finds it.

Pure asyncio and a clock (injectable): the fairness tests drive it with fake jobs and a fake
clock. Source: issue brief (fair, bounded replay work); RFC 6585 §4 (429 and Retry-After).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

WAIT_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Upper bounds (seconds) of the queue-wait histogram (`QueueStats.wait_buckets`)."""

RETRY_AFTER_MAX_S = 60


class ReplayRefused(Exception):
    """A replay-class read refused by the replay queue's bounds (`FairQueue`).

    Attributes:
        status: 429 (this client's own limit) or 503 (the queue is full, or the deadline
            passed).
        rule: `replay.client_limit`, `replay.queue_full` or `replay.deadline`.
        limit / value: the setting at fault (`per_client`, `queued`, `deadline_s`) and its value.
        message: one sentence for the problem's detail.
        retry_after_s: whole seconds a client should wait before it retries, at least 1.
    """

    def __init__(
        self, status: int, rule: str, limit: str, value: float, message: str, retry_after_s: int
    ) -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule
        self.limit = limit
        self.value = value
        self.message = message
        self.retry_after_s = retry_after_s


@dataclass(frozen=True, slots=True)
class Limits:
    """The replay queue's bounds.

    Attributes:
        slots: jobs run at once (the replay worker processes), at least 1.
        queued: most jobs waiting in all (503 `replay.queue_full` past it).
        per_client: most jobs of one client waiting or running (429 `replay.client_limit`).
        deadline_s: seconds from a job's arrival to its answer (503 `replay.deadline` after).
    """

    slots: int = 1
    queued: int = 64
    per_client: int = 4
    deadline_s: float = 60.0


@dataclass
class QueueStats:
    """What `/metrics` shows of the queue: `queued` and `running` now, `admitted` jobs and
    `refused` ones by rule since start, and the waits (arrival to start, seconds) of the
    started jobs as cumulative histogram counts per `WAIT_BUCKETS_S` bound (`wait_buckets`,
    +Inf last), their `wait_count` and `wait_sum_s`."""

    queued: int = 0
    running: int = 0
    admitted: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    wait_buckets: list[int] = field(default_factory=lambda: [0] * (len(WAIT_BUCKETS_S) + 1))
    wait_count: int = 0
    wait_sum_s: float = 0.0


@dataclass(eq=False, slots=True)
class _Ticket:
    """One waiting job: whose, of which game, when it came, and its start signal."""

    client: str
    game: str
    arrived: float
    start: asyncio.Future[None]


@dataclass(eq=False, slots=True)
class FairQueue:
    """Admits, orders and bounds replay jobs (see the module docstring).

    Args:
        limits: the bounds.
        clock: monotonic seconds (a fake one in tests).
    """

    limits: Limits
    clock: Callable[[], float] = time.monotonic
    _ring: OrderedDict[str, OrderedDict[str, deque[_Ticket]]] = field(
        init=False, default_factory=OrderedDict
    )
    # client -> jobs waiting or running
    _held: dict[str, int] = field(init=False, default_factory=dict)
    # when each client with jobs, and each of its games, last had a job started
    _served: dict[str, tuple[int, dict[str, int]]] = field(init=False, default_factory=dict)
    _tick: int = field(init=False, default=0)
    _queued: int = field(init=False, default=0)
    _running: int = field(init=False, default=0)
    # a running average of a job's time on a worker (Retry-After)
    _cost_s: float = field(init=False, default=0.1)
    # the counters (its queued / running unused: `stats()`)
    counts: QueueStats = field(init=False, default_factory=QueueStats)

    def __post_init__(self) -> None:
        limits = self.limits
        if limits.slots < 1 or limits.queued < 0 or limits.per_client < 1:
            raise ValueError(f"replay queue limits out of range: {limits}")

    async def run(self, client: str, game: str, job: Callable[[], Awaitable[T]]) -> T:
        """`await job()` once a slot is this job's turn; its result or exception.

        Raises:
            ReplayRefused: 429 `replay.client_limit`, 503 `replay.queue_full` at arrival;
                503 `replay.deadline` when the answer is not ready within `deadline_s`.
        """
        arrived = self.clock()
        limits = self.limits
        held = self._held.get(client, 0)
        if held >= limits.per_client:
            raise self._refuse(
                429,
                "replay.client_limit",
                "per_client",
                limits.per_client,
                f"this client has {held} replays waiting or running, at most {limits.per_client}",
                self._cost_s * held / limits.slots,
            )
        free = self._running < limits.slots and not self._queued
        if not free and self._queued >= limits.queued:
            raise self._refuse(
                503,
                "replay.queue_full",
                "queued",
                limits.queued,
                f"{self._queued} replays are waiting, at most {limits.queued}",
                self._backlog_s(),
            )
        self._held[client] = held + 1
        self.counts.admitted += 1
        if free:
            self._running += 1
            self._mark_served(client, game)
        else:
            await self._wait_turn(_Ticket(client, game, arrived, self._future()))
        self._waited(self.clock() - arrived)
        return await self._start(client, arrived, job)

    def stats(self) -> QueueStats:
        """The queue now: `queued` and `running` jobs, and the counts since start."""
        counts = self.counts
        return QueueStats(
            queued=self._queued,
            running=self._running,
            admitted=counts.admitted,
            refused=dict(counts.refused),
            wait_buckets=list(counts.wait_buckets),
            wait_count=counts.wait_count,
            wait_sum_s=counts.wait_sum_s,
        )

    def _future(self) -> asyncio.Future[None]:
        return asyncio.get_running_loop().create_future()

    async def _wait_turn(self, ticket: _Ticket) -> None:
        """Queue `ticket` and wait until `_dispatch` gives it a slot (then counted as
        running); past its deadline it leaves the queue and is refused (`replay.deadline`).
        On any failure here the client's count is released and no slot is kept."""
        games = self._ring.setdefault(ticket.client, OrderedDict())
        games.setdefault(ticket.game, deque()).append(ticket)
        self._queued += 1
        remaining = ticket.arrived + self.limits.deadline_s - self.clock()
        try:
            async with asyncio.timeout(max(0.0, remaining)):
                await asyncio.shield(ticket.start)
        except BaseException as error:
            start = ticket.start
            if not start.done():  # still waiting: out of the queue
                self._unqueue(ticket)
                self._release(ticket.client)
            elif not start.cancelled() and start.exception() is None:
                self._finished(ticket.client)  # given a slot as we stopped: hand it on
            # else `_dispatch` refused it past its deadline and released it already
            if isinstance(error, TimeoutError):
                raise self._deadline() from None
            raise

    async def _start(self, client: str, arrived: float, job: Callable[[], Awaitable[T]]) -> T:
        """Run `job` in the slot this job holds; the slot and the client's count are released
        when the job ends, even when its waiter stopped waiting at the deadline."""
        began = self.clock()
        task = asyncio.ensure_future(job())

        def ended(_: asyncio.Future[T]) -> None:
            spent = max(0.0, self.clock() - began)
            self._cost_s = 0.8 * self._cost_s + 0.2 * spent
            self._finished(client)

        task.add_done_callback(ended)
        remaining = arrived + self.limits.deadline_s - self.clock()
        try:
            async with asyncio.timeout(max(0.0, remaining)):
                return await asyncio.shield(task)
        except BaseException as error:
            if not task.done():  # it runs on; nobody will read its outcome but the cache
                task.add_done_callback(_consume)
                if isinstance(error, TimeoutError):
                    raise self._deadline() from None
            elif isinstance(error, TimeoutError):
                return task.result()
            raise

    def _finished(self, client: str) -> None:
        """A running job ended: its slot goes to the next waiting job in turn."""
        self._running -= 1
        self._release(client)
        self._dispatch()

    def _release(self, client: str) -> None:
        left = self._held.get(client, 0) - 1
        if left > 0:
            self._held[client] = left
        else:  # nothing of the client's is left: nor is its turn's history
            self._held.pop(client, None)
            self._served.pop(client, None)

    def _mark_served(self, client: str, game: str) -> None:
        self._tick += 1
        games = self._served.get(client, (0, {}))[1]
        games[game] = self._tick
        self._served[client] = (self._tick, games)

    def _dispatch(self) -> None:
        """Give free slots to waiting jobs: the next client in turn, its next game in turn; a
        job already past its deadline is refused, not started."""
        while self._running < self.limits.slots:
            ticket = self._next()
            if ticket is None:
                return
            if self.clock() >= ticket.arrived + self.limits.deadline_s:
                self._release(ticket.client)
                ticket.start.set_exception(self._deadline())
                continue
            self._running += 1
            self._mark_served(ticket.client, ticket.game)
            ticket.start.set_result(None)

    def _next(self) -> _Ticket | None:
        """The next waiting ticket, taken out of the queue: of the waiting client served least
        recently, of its game served least recently (never served: -1; ties: the order they
        came in). O(waiting clients + their games), both bounded by `queued`."""
        if not self._ring:
            return None
        served = self._served
        client = min(self._ring, key=lambda c: served.get(c, (-1, {}))[0])
        games = self._ring[client]
        played = served.get(client, (-1, {}))[1]
        game = min(games, key=lambda g: played.get(g, -1))
        tickets = games[game]
        ticket = tickets.popleft()
        if not tickets:
            del games[game]
        if not games:
            del self._ring[client]
        self._queued -= 1
        return ticket

    def _unqueue(self, ticket: _Ticket) -> None:
        games = self._ring.get(ticket.client)
        tickets = games.get(ticket.game) if games is not None else None
        if games is None or tickets is None or ticket not in tickets:
            return
        tickets.remove(ticket)
        if not tickets:
            del games[ticket.game]
        if not games:
            del self._ring[ticket.client]
        self._queued -= 1

    def _waited(self, seconds: float) -> None:
        stats = self.counts
        stats.wait_count += 1
        stats.wait_sum_s += seconds
        for i, bound in enumerate((*WAIT_BUCKETS_S, math.inf)):
            if seconds <= bound:
                stats.wait_buckets[i] += 1

    def _backlog_s(self) -> float:
        """About how long the waiting jobs take to drain (seconds)."""
        return self._cost_s * (self._queued + self._running) / self.limits.slots

    def _deadline(self) -> ReplayRefused:
        limits = self.limits
        return self._refuse(
            503,
            "replay.deadline",
            "deadline_s",
            limits.deadline_s,
            f"the replay was not ready within its deadline of {limits.deadline_s:g} s",
            self._backlog_s(),
        )

    def _refuse(
        self, status: int, rule: str, limit: str, value: float, message: str, wait_s: float
    ) -> ReplayRefused:
        refused = self.counts.refused
        refused[rule] = refused.get(rule, 0) + 1
        retry = min(RETRY_AFTER_MAX_S, max(1, math.ceil(wait_s)))
        return ReplayRefused(status, rule, limit, value, message, retry)


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve an abandoned job's exception (its waiter answered at the deadline)."""
    if not task.cancelled():
        task.exception()
