"""The parent a replay-worker orphan test kills (`test_replay_pool_life.py`), kept light: the
child interpreter and the worker it spawns import this module and `offloop` only."""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

from services.usecases.readmodels import offloop

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
        offloop._bind_to_parent()
    else:  # the fallback of other systems
        offloop._watch_parent(multiprocessing.parent_process().sentinel)  # type: ignore[union-attr]
    ready.set()
    time.sleep(600)
