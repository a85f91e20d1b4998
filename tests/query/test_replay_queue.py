"""The replay queue (`fairqueue.FairQueue`) with fake jobs and a fake clock: deterministic, no
timing threshold (a job runs exactly when the test releases it).

* Fairness: a client that floods cannot starve another: with one slot, the other client's job
  is the next to start, whatever the flood's length; within one client, a small game's job
  does not wait behind the long game's jobs (round robin over games).
* Bounds: 429 `replay.client_limit` past a client's cap, 503 `replay.queue_full` past the
  queue's, each with a Retry-After of at least 1 s; the slot and the counts come back.
* Deadline: a job still waiting at its deadline is refused 503 `replay.deadline` and never
  runs; a running job past it is answered 503 while it runs on and frees its slot when done.
Source: issue brief (fair, bounded replay work).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from services.runtime.fairqueue import FairQueue, Limits
from services.usecases.readmodels.errors import ReplayRefused


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Jobs:
    """Fake jobs: each records its start in `started` and ends when the test releases it."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.gates: dict[str, asyncio.Future[str]] = {}

    def job(self, name: str) -> Callable[[], Awaitable[str]]:
        gate: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.gates[name] = gate

        async def run() -> str:
            self.started.append(name)
            return await gate

        return run

    def release(self, name: str) -> None:
        self.gates[name].set_result(name)


async def settle() -> None:
    """Let every ready task run (no time passes)."""
    for _ in range(20):
        await asyncio.sleep(0)


def submit(queue: FairQueue, jobs: Jobs, client: str, game: str, name: str) -> asyncio.Task[str]:
    return asyncio.ensure_future(queue.run(client, game, jobs.job(name)))


async def test_a_flooding_client_cannot_starve_another() -> None:
    queue = FairQueue(Limits(slots=1, queued=100, per_client=50, deadline_s=60), Clock())
    jobs = Jobs()
    flood = [submit(queue, jobs, "10.0.0.1", "long", f"f{i}") for i in range(20)]
    await settle()
    other = submit(queue, jobs, "10.0.0.2", "small", "mine")
    await settle()
    assert jobs.started == ["f0"]
    jobs.release("f0")
    await settle()
    assert jobs.started == ["f0", "mine"]  # next in turn, ahead of 19 earlier flood jobs
    jobs.release("mine")
    assert await other == "mine"
    for i in range(1, 20):
        await settle()
        jobs.release(f"f{i}")
    assert [await f for f in flood] == [f"f{i}" for i in range(20)]
    assert queue.stats().queued == 0
    assert queue.stats().running == 0


async def test_clients_take_turns_round_robin() -> None:
    queue = FairQueue(Limits(slots=1, queued=100, per_client=10, deadline_s=60), Clock())
    jobs = Jobs()
    tasks = [submit(queue, jobs, "a", "g", "a0")]
    await settle()
    tasks += [submit(queue, jobs, "a", "g", f"a{i}") for i in (1, 2, 3)]
    tasks += [submit(queue, jobs, "b", "g", f"b{i}") for i in (1, 2)]
    tasks += [submit(queue, jobs, "c", "g", "c1")]
    await settle()
    # least recently served first: b and c never were, then a, b, a ...
    for name in ["a0", "b1", "c1", "a1", "b2", "a2", "a3"]:
        await settle()
        assert jobs.started[-1] == name
        jobs.release(name)
    await asyncio.gather(*tasks)


async def test_one_clients_small_game_does_not_wait_behind_its_long_game() -> None:
    queue = FairQueue(Limits(slots=1, queued=100, per_client=50, deadline_s=60), Clock())
    jobs = Jobs()
    tasks = [submit(queue, jobs, "proxy", "long", f"l{i}") for i in range(10)]
    await settle()
    tasks.append(submit(queue, jobs, "proxy", "small", "s"))
    await settle()
    jobs.release("l0")
    await settle()
    assert jobs.started == ["l0", "s"]  # ahead of 9 earlier jobs of the long game
    for name in ["s", *(f"l{i}" for i in range(1, 10))]:
        await settle()
        jobs.release(name)
    await asyncio.gather(*tasks)


async def test_over_the_clients_cap_is_429_with_retry_after() -> None:
    queue = FairQueue(Limits(slots=1, queued=100, per_client=2, deadline_s=60), Clock())
    jobs = Jobs()
    tasks = [submit(queue, jobs, "a", "g", n) for n in ("a0", "a1")]
    await settle()
    with pytest.raises(ReplayRefused) as refused:
        await queue.run("a", "g", jobs.job("a2"))
    error = refused.value
    assert (error.status, error.rule, error.limit, error.value) == (
        429,
        "replay.client_limit",
        "per_client",
        2,
    )
    assert error.retry_after_s >= 1
    other = submit(queue, jobs, "b", "g", "b0")  # another client is not refused
    await settle()
    jobs.release("a0")
    await settle()
    assert jobs.started == ["a0", "b0"]
    tasks.append(submit(queue, jobs, "a", "g", "a3"))  # a job of `a` ended: room again
    for name in ("b0", "a1", "a3"):
        await settle()
        jobs.release(name)
    await asyncio.gather(*tasks, other)
    assert queue.stats().refused == {"replay.client_limit": 1}


async def test_over_the_queues_bound_is_503_queue_full() -> None:
    queue = FairQueue(Limits(slots=1, queued=2, per_client=10, deadline_s=60), Clock())
    jobs = Jobs()
    tasks = [submit(queue, jobs, f"c{i}", "g", f"j{i}") for i in range(3)]  # 1 runs, 2 wait
    await settle()
    with pytest.raises(ReplayRefused) as refused:
        await queue.run("c9", "g", jobs.job("j9"))
    assert (refused.value.status, refused.value.rule) == (503, "replay.queue_full")
    assert refused.value.retry_after_s >= 1
    for i in range(3):
        await settle()
        jobs.release(f"j{i}")
    await asyncio.gather(*tasks)
    stats = queue.stats()
    assert (stats.admitted, stats.refused, stats.wait_count) == (3, {"replay.queue_full": 1}, 3)


async def test_a_job_past_its_deadline_in_the_queue_is_refused_and_never_runs() -> None:
    clock = Clock()
    queue = FairQueue(Limits(slots=1, queued=10, per_client=10, deadline_s=5), clock)
    jobs = Jobs()
    first = submit(queue, jobs, "a", "g", "first")
    await settle()
    late = submit(queue, jobs, "b", "g", "late")
    await settle()
    clock.now += 6  # past `late`'s deadline while it waits; then the slot frees
    jobs.release("first")
    assert await first == "first"
    with pytest.raises(ReplayRefused) as refused:
        await late
    assert (refused.value.status, refused.value.rule, refused.value.limit) == (
        503,
        "replay.deadline",
        "deadline_s",
    )
    assert jobs.started == ["first"]
    stats = queue.stats()
    assert (stats.queued, stats.running) == (0, 0)
    after = submit(queue, jobs, "b", "g", "after")  # b's count was released
    await settle()
    jobs.release("after")
    assert await after == "after"


async def test_the_deadline_fires_for_a_waiting_job_without_a_free_slot() -> None:
    """A real (tiny) deadline: the waiter is answered though no slot ever frees."""
    queue = FairQueue(Limits(slots=1, queued=10, per_client=10, deadline_s=0.05))
    jobs = Jobs()
    stuck = submit(queue, jobs, "a", "g", "stuck")
    await settle()
    with pytest.raises(ReplayRefused) as refused:
        await queue.run("b", "g", jobs.job("never"))
    assert refused.value.rule == "replay.deadline"
    assert "never" not in jobs.started
    assert queue.stats().queued == 0
    with pytest.raises(ReplayRefused):  # the running one too is answered at its deadline
        await stuck
    assert queue.stats().running == 1  # ... but runs on, holding its slot
    jobs.release("stuck")
    await settle()
    assert queue.stats().running == 0


async def test_a_failing_job_frees_its_slot() -> None:
    queue = FairQueue(Limits(slots=1, queued=10, per_client=1, deadline_s=60), Clock())

    async def boom() -> str:
        raise LookupError("no such event")

    with pytest.raises(LookupError):
        await queue.run("a", "g", boom)
    jobs = Jobs()
    task = submit(queue, jobs, "a", "g", "next")
    await settle()
    jobs.release("next")
    assert await task == "next"


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    queue = FairQueue(Limits(slots=1, queued=10, per_client=10, deadline_s=60), Clock())
    jobs = Jobs()
    first = submit(queue, jobs, "a", "g", "first")
    await settle()
    waiting = submit(queue, jobs, "b", "g", "gone")
    await settle()
    waiting.cancel()
    await settle()
    assert queue.stats().queued == 0
    jobs.release("first")
    await first
    assert jobs.started == ["first"]
    assert queue.stats().running == 0
