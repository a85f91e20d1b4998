"""Child processes with their CPU time: `/proc/PID/stat` while they run, `os.wait4`'s rusage
when they end (no psutil). CPU seconds = user + system, every thread of the process."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from services.platform.lifetime import bound_to_parent, stop_child

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a live process has used so far; 0.0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)


def best_cpu(work: Callable[[], object], repeats: int) -> float:
    """The fastest of `repeats` runs of `work` in this process, CPU seconds
    (`time.process_time`): on a shared machine a run is only ever slowed."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def descendants(pid: int) -> list[int]:
    """`pid` and every live process below it (Linux `/proc/PID/task/TID/children`)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(child) for child in task.read_text().split()]
            except OSError:  # the task ended meanwhile
                continue
    return found


@dataclass(frozen=True)
class Finished:
    """A finished child: `rc`, `wall_s`, `cpu_s` (from rusage), `stdout`, `stderr` text."""

    rc: int
    wall_s: float
    cpu_s: float
    stdout: str
    stderr: str


def run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 900) -> Finished:
    """Run `argv` to the end and report its own CPU (os.wait4 rusage); output to files."""
    out_path = Path(f"/tmp/bench-{os.getpid()}-{time.monotonic_ns()}")
    with open(f"{out_path}.out", "w+") as out, open(f"{out_path}.err", "w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
            time.sleep(0.002)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text_out, text_err = out.read(), err.read()
    for suffix in (".out", ".err"):
        Path(f"{out_path}{suffix}").unlink(missing_ok=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[-3:]} exited {proc.returncode}: {text_err[-2000:]}")
    return Finished(proc.returncode, wall, usage.ru_utime + usage.ru_stime, text_out, text_err)


class Service:
    """`with Service(argv, env, cwd, ready_url) as svc:` a long-running child (a server, the
    projector), ready when `ready_url` answers 200 (or at once without one); `svc.cpu()` its
    CPU seconds so far; stopped with SIGTERM (SIGKILL after 10 s) by its own pid."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        ready_url: str | None = None,
        ready_s: float = 60,
    ) -> None:
        self.argv, self.env, self.cwd, self.ready_url = argv, env, cwd, ready_url
        self.ready_s = ready_s  # how long it may take to answer `ready_url`
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(f"/tmp/bench-svc-{os.getpid()}-{time.monotonic_ns()}.log")

    def __enter__(self) -> Service:
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                bound_to_parent(self.argv, os.getpid()),  # ends with a killed harness too
                env=self.env,
                cwd=self.cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.ready_s
        while self.ready_url is not None:
            try:
                if httpx.get(self.ready_url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = self.log.read_text(errors="replace")[-2000:]
                self.__exit__(None, None, None)
                raise RuntimeError(f"{self.argv[-4:]} did not start: {tail}")
            time.sleep(0.1)
        return self

    def cpu(self) -> float:
        """CPU seconds the child has used so far."""
        return cpu_of(self.proc.pid) if self.proc is not None else 0.0

    def tree_cpu(self) -> float:
        """CPU seconds the child and its live descendants (a replay pool's workers) have used."""
        return sum(map(cpu_of, descendants(self.proc.pid))) if self.proc is not None else 0.0

    def settled(self, quiet_s: float = 1.0, slack_s: float = 0.0, limit_s: float = 60) -> float:
        """Wait until the CPU of the child and its descendants has grown by at most `slack_s`
        seconds over `quiet_s` seconds (started and idle: a `serve`'s replay workers warm up
        after it answers `/healthz`, on the cores a timed load would use), or `limit_s`
        passed; the child's own CPU seconds then."""
        last, still, limit = self.tree_cpu(), time.monotonic(), time.monotonic() + limit_s
        while time.monotonic() < limit:
            time.sleep(0.1)
            now = self.tree_cpu()
            if now - last > slack_s:
                last, still = now, time.monotonic()
            elif time.monotonic() - still >= quiet_s:
                break
        return self.cpu()

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            stop_child(self.proc, signal.SIGTERM, 10)
        self.log.unlink(missing_ok=True)
