"""A worker process's life: bound to its parent's, its collector paused during one job, and
its exceptions made fit to cross back to the parent.

* `start(ready, *args)` is a pool's initializer: bind to the parent (`bind_to_parent`), run
  the caller's warm-up `ready(*args)`, then freeze what the warm-up made
  (`services.runtime.gctune.tune_for_long_life`).
* `collector_paused()`: in a worker, no garbage collection during one job (a no-op elsewhere).
* `portable(error)`: the error itself when it survives pickling, else `ReplayFailed`.

Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (replays in worker processes).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from services.runtime.gctune import tune_for_long_life


class ReplayFailed(RuntimeError):
    """A replay raised an exception that could not be sent back as itself."""


PR_SET_PDEATHSIG = 1
"""`prctl` option: the signal the kernel sends when the parent ends (linux/prctl.h)."""

PARENT_GONE = signal.SIGUSR1
"""The parent-death signal of a worker (Linux). Not SIGTERM: the pool's own `terminate` of
a broken worker must still end it however its parent is."""

_in_worker = False
"""True in a pool worker process (set by `start`), where a job pauses the collector."""


def start(ready: Callable[..., None], *args: Any) -> None:
    """A pool's initializer, once per worker: bind its life to the parent's, run `ready(*args)`
    (the caller's warm-up), then mark the process a worker and freeze the warm-up's objects so
    no later collection walks them."""
    global _in_worker
    bind_to_parent()
    ready(*args)
    _in_worker = True
    tune_for_long_life()


def bind_to_parent() -> None:
    """In a worker: exit as soon as the parent process ends, however it ends (SIGKILL, out of
    memory): the pool's pipe cannot tell, as the worker holds its write end itself. Linux: a
    parent-death signal (`prctl(PR_SET_PDEATHSIG)`, prctl(2)); elsewhere, or if prctl
    fails, a thread waiting on the parent's sentinel pipe."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not a multiprocessing child: nothing to bind to
        return
    if not (sys.platform == "linux" and _parent_death_signal(parent.pid)):
        watch_parent(parent.sentinel)


def _parent_death_signal(parent_pid: int | None) -> bool:
    """Ask the kernel for `PARENT_GONE` when the parent ends; True if it took. The kernel also
    sends it when only the *thread* that spawned the worker ends (prctl(2)), so the handler
    exits only once the parent id has changed (the worker was re-parented)."""

    def exit_if_orphaned() -> None:
        if os.getppid() != parent_pid:
            os._exit(1)

    signal.signal(PARENT_GONE, lambda *_: exit_if_orphaned())
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        taken = bool(libc.prctl(PR_SET_PDEATHSIG, int(PARENT_GONE), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        taken = False
    if taken:
        exit_if_orphaned()  # the parent may have ended before the prctl: no signal then
    return taken


def watch_parent(sentinel: int) -> None:
    """A daemon thread that exits the worker when `sentinel` (the parent's end of a pipe,
    `multiprocessing.parent_process().sentinel`) reads as closed: the parent has ended."""

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """In a worker process, no garbage collection during one job: the events it parses all
    stay alive until it ends, and the collections they trigger walked them again and again
    (27% of a 6,000-event series, docs/decisions/0012-hot-reads-and-off-loop-replays.md).
    Reference counting still frees what dies at once; cycles are collected after. A no-op
    elsewhere (a thread pool in tests) and when nested."""
    if not _in_worker or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def portable(error: Exception) -> Exception:
    """`error` itself when it survives pickling (it crosses back to the parent as itself),
    else a `ReplayFailed` naming its type and message."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # e.g. an __init__ with more arguments than `args` holds
        return ReplayFailed(f"{type(error).__name__}: {error}")
    return error
