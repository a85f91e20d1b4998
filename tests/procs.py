"""Which processes are alive, read from Linux's /proc (psutil is not a dependency).

The leak checks of the suite use it: `tests/conftest.py` (processes of the test run still
alive at its end) and `tests/cli/test_serve_stop.py` (nothing of `serve` left after it is
stopped). A process that ends while it is being read is simply not listed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
PR_SET_CHILD_SUBREAPER = 36
"""`prctl` option (linux/prctl.h): orphans of this process's descendants are re-parented to it."""


@dataclass(frozen=True)
class Proc:
    """One live process: its id, parent id, session id, state letter (`R`, `S`, `Z`...) and
    command line (its name in brackets when it has none)."""

    pid: int
    ppid: int
    session: int
    state: str
    cmdline: str

    def __str__(self) -> str:
        return f"pid {self.pid} (parent {self.ppid}, state {self.state}): {self.cmdline[:160]}"


def read(pid: int) -> Proc | None:
    """Process `pid` as /proc shows it now, or None if it is gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    state, ppid, _pgrp, session = stat[stat.rindex(")") + 2 :].split()[:4]
    cmdline = raw.replace(b"\0", b" ").decode(errors="replace").strip() or f"[{name}]"
    return Proc(pid, int(ppid), int(session), state, cmdline)


def processes() -> list[Proc]:
    """Every process visible now."""
    found = (read(int(entry.name)) for entry in PROC.iterdir() if entry.name.isdigit())
    return [proc for proc in found if proc is not None]


def descendants(pid: int) -> list[Proc]:
    """The live processes below `pid` (children, their children...), zombies left out."""
    everyone = processes()
    below: list[Proc] = []
    parents = {pid}
    while True:
        found = [p for p in everyone if p.ppid in parents and p not in below]
        if not found:
            return [p for p in below if p.state != "Z"]
        below += found
        parents = {p.pid for p in found}


def in_session(session: int) -> list[Proc]:
    """The live processes of session `session` (a process started with `start_new_session`
    and whatever it starts keep it, also once re-parented), zombies left out."""
    return [p for p in processes() if p.session == session and p.state != "Z"]


def wait_until_none(find: Callable[[], list[Proc]], timeout_s: float) -> list[Proc]:
    """Poll `find` until it returns nothing or `timeout_s` seconds pass; its last answer."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = find()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def wait_listening(
    port: int, proc: subprocess.Popen[bytes] | None = None, timeout_s: float = 60.0
) -> None:
    """Poll a TCP connect to 127.0.0.1:`port` every 50 ms until it is accepted (a started
    `serve` listens once its lifespan is up). A fixed short interval, not httpx's doubling
    retries, whose waits (0.5, 1, 2, 4 s...) added up to half a start-up to every start.

    Raises:
        RuntimeError: `proc` ended before it listened.
        TimeoutError: nothing listened within `timeout_s` seconds.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1.0):
            return
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process ended (exit {proc.returncode}) before it listened")
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing listened on port {port} within {timeout_s:.0f} s")
        time.sleep(0.05)


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux, prctl(2)): an orphan
    (its parent died first) is re-parented here instead of to PID 1, so `descendants` still
    finds it. True if it took."""
    if sys.platform != "linux":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def reap_zombies() -> None:
    """Collect the exit status of every zombie child of this process (orphans re-parented to
    a subreaper stay zombies until it waits for them)."""
    me = os.getpid()
    for proc in processes():
        if proc.ppid == me and proc.state == "Z":
            with contextlib.suppress(ChildProcessError):
                os.waitpid(proc.pid, os.WNOHANG)
