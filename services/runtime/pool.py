"""The process-wide pool of worker processes, shared by every reader of a process, held by the
apps that run and ended by the last of them.

Spawned, not forked: the parent runs an event loop, threads and Redis connections (so a program
that starts it from a script must guard its main code, as `multiprocessing` requires). Each
worker runs `services.runtime.worker.start` first (bound to its parent, then the caller's
warm-up). Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (replays off the event
loop, in worker processes).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from services.runtime import worker

PROCESSES = max(1, min(2, (os.cpu_count() or 2) - 1))
"""Worker processes of the shared pool: leave a core to the event loop (and Redis)."""

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_holders = 0
"""How many running apps hold the shared pool (`hold_shared_pool`); the last to let go ends it."""


def shared_pool(ready: Callable[..., None], *args: Any) -> ProcessPoolExecutor:
    """The process-wide pool (`PROCESSES` spawned workers), made on first use, each worker
    running `ready(*args)` as it starts (the first caller's warm-up: a module-level function
    and picklable arguments)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            context = multiprocessing.get_context("spawn")
            _pool = ProcessPoolExecutor(
                PROCESSES, mp_context=context, initializer=worker.start, initargs=(ready, *args)
            )
        return _pool


def drop_pool() -> None:
    """Forget a broken pool (a worker died): cancelled at once, the next use makes a new one."""
    global _pool
    with _pool_lock:
        broken, _pool = _pool, None
    if broken is not None:
        broken.shutdown(wait=False, cancel_futures=True)


def hold_shared_pool() -> None:
    """One more holder of the shared pool (an app's lifespan, a test session): the pool, made
    on first use as before, lives until the last holder lets go (`let_go_shared_pool`)."""
    global _holders
    with _pool_lock:
        _holders += 1


def let_go_shared_pool(timeout_s: float = 5.0) -> None:
    """One holder fewer; when none is left, the shared pool is ended (`stop_shared_pool`).
    Blocking (up to about `timeout_s` + 1 seconds): call it off the event loop."""
    global _holders
    with _pool_lock:
        _holders = max(0, _holders - 1)
        last = _holders == 0
    if last:
        stop_shared_pool(timeout_s)


def stop_shared_pool(timeout_s: float = 5.0) -> None:
    """End the shared pool now, whoever holds it: queued jobs are cancelled, each worker gets
    the pool's own stop message and `timeout_s` seconds to finish the job it runs (a warming
    worker first finishes its warm-up), then SIGKILL. A later job starts a new pool.

    A graceful stop must come here: `serve` ends by the signal it caught (uvicorn re-raises it
    after the lifespan's shutdown), so no exit hook of the parent runs. Blocking; idempotent."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        _end_workers(pool, timeout_s)


def _end_workers(pool: ProcessPoolExecutor, timeout_s: float) -> None:
    """Shut `pool` down and wait for its workers (its manager thread sends each the stop
    message and joins it), killing those still alive after `timeout_s` seconds."""
    workers = list((pool._processes or {}).values())  # before the manager thread forgets them
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(timeout_s)
    for process in workers:
        if process.is_alive():
            process.kill()
            process.join(1.0)
