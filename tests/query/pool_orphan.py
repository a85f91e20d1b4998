"""The parent a replay-worker orphan test kills (`test_replay_pool_life.py`), kept light: the
child interpreter and the worker it spawns import this module and `services.runtime.worker` only."""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

from services.runtime import worker

# The orphan cases run in a child interpreter (the parent that is killed): it spawns a worker
# as the pool does (spawn context), waits until it has bound itself, prints its pid, sleeps.
PARENT = """
import multiprocessing, sys, threading, time
from tests.query.pool_orphan import bound_sleeper
ctx = multiprocessing.get_context("spawn")
ready = ctx.Event()
box = []
def spawn():
    box.append(ctx.Process(target=bound_sleeper, args=(sys.argv[1], ready)))
    box[0].start()
    assert ready.wait(60)
if sys.argv[2] == "thread":  # spawned from a thread that ends once the worker is bound
    t = threading.Thread(target=spawn); t.start(); t.join()
else:
    spawn()
print(box[0].pid, flush=True)
time.sleep(600)
"""


def bound_sleeper(how: str, ready: Any) -> None:
    """In the spawned child: bind to the parent as the pool's worker does, say so, sleep."""
    if how == "linux":
        worker.bind_to_parent()
    else:  # the fallback of other systems
        worker.watch_parent(multiprocessing.parent_process().sentinel)  # type: ignore[union-attr]
    ready.set()
    time.sleep(600)
