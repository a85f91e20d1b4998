"""The processes a command starts end with it: a SIGTERM unwinds (so `with` blocks stop what
they started), and a server it starts (the demo's redis-server and cluster nodes) is told by
the kernel when the command dies, even by SIGKILL.

Why both: uvicorn catches SIGTERM, shuts the app down, then raises the signal again with the
default action (death), so a `with` around it never exits unless SIGTERM raises instead; and
nothing runs at all in a process killed by SIGKILL, so there the child must notice by itself.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

EXIT_SIGTERM = 128 + signal.SIGTERM
"""The exit code of a command ended by SIGTERM (the shell's convention)."""

# Runs in the child between fork and exec: set the parent-death signal (prctl(2),
# PR_SET_PDEATHSIG = 1; kept across exec), exit if the parent is already gone, exec the server.
_BIND = (
    "import ctypes,os,sys;"
    "ctypes.CDLL(None).prctl(1,int(sys.argv[1]),0,0,0);"
    "os.getppid()!=int(sys.argv[2]) and os._exit(1);"
    "os.execvp(sys.argv[3],sys.argv[3:])"
)


def exit_on_sigterm() -> None:
    """From now on SIGTERM raises `SystemExit(143)` in the main thread (when called there), so
    the stack unwinds and every `with` (a throwaway Redis) stops what it started."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(EXIT_SIGTERM)

    signal.signal(signal.SIGTERM, handle)


@contextmanager
def sigterm_deferred() -> Iterator[None]:
    """Within the block (an `asyncio.run` of a uvicorn server), SIGTERM is only noted: uvicorn
    catches it itself, shuts the app down and then raises it again, which would otherwise land
    as `SystemExit` inside its task (an unretrieved task exception). After the block the
    previous handler is back and a noted SIGTERM is raised again, out of the event loop."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if noted:
            signal.raise_signal(signal.SIGTERM)


def bound_to_parent(argv: list[str], parent_pid: int) -> list[str]:
    """`argv` (an executable first, looked up on the PATH) started so that it gets SIGTERM
    when its parent `parent_pid` (the calling process: `os.getpid()`) ends, however (Linux;
    elsewhere `argv` unchanged). The kernel sends it when the *thread* that started the child
    ends, so start it from a thread that outlives it (the main thread)."""
    if sys.platform != "linux":
        return argv
    return [sys.executable, "-S", "-c", _BIND, str(int(signal.SIGTERM)), str(parent_pid), *argv]


def stop_child(child: subprocess.Popen[Any], sig: int, timeout_s: float) -> None:
    """Send `sig` to `child`, wait up to `timeout_s` seconds for it to exit, and kill it (and
    reap it) when it has not by then."""
    child.send_signal(sig)
    try:
        child.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
