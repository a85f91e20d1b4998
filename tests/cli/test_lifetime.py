"""What a command starts ends with it: a server started `bound_to_parent` (the demo's Redis
and cluster nodes) ends when the command is killed by SIGKILL, and the kept-running demo
stopped by SIGTERM stops its throwaway Redis (and everything else) before it exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import procs
from tests.cli.conftest import run_module

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 5.0

# The command that is killed: it starts `sleep` bound to itself, prints its pid, waits.
PARENT = """
import os, shutil, subprocess, sys, time
from services.platform.lifetime import bound_to_parent
argv = [shutil.which("sleep"), "300"]
if sys.argv[1] == "bound":
    argv = bound_to_parent(argv, os.getpid())
child = subprocess.Popen(argv)
while "python" in os.readlink(f"/proc/{child.pid}/exe"):
    time.sleep(0.01)  # until the trampoline has exec'd the server
print(child.pid, flush=True)
time.sleep(600)
"""


def _session_kill(session: int) -> None:
    for left in procs.in_session(session):
        os.kill(left.pid, signal.SIGKILL)


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("how", ["bound", "plain"])
def test_a_bound_server_ends_when_its_command_is_killed(how: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, how],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        parent.kill()
        parent.wait()
        left = procs.wait_until_none(
            lambda: [p for p in procs.in_session(parent.pid) if p.pid == child], BOUND_S
        )
        print(f"{how}: left {BOUND_S} s after SIGKILL of the command: {left}")
        if how == "bound":
            assert not left
        else:  # the control: an unbound child outlives its killed parent
            assert left
    finally:
        _session_kill(parent.pid)


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_kept_running_demo_stopped_by_sigterm_leaves_nothing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SCORELEDGER_REDIS_URL")}
    env["XDG_RUNTIME_DIR"] = str(tmp_path)  # the demo's state file (services.cli.demo_state)
    state = tmp_path / "scoreledger" / "scoreledger-demo.json"
    log = tmp_path / "demo.log"
    with log.open("wb") as out:
        demo = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "demo", "--keep-running", "--json"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 240
        while "serving until Ctrl-C" not in log.read_text(errors="replace"):
            assert demo.poll() is None, log.read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "the demo did not come up"
            time.sleep(0.2)
        started = procs.in_session(demo.pid)
        assert any("redis-server" in p.cmdline for p in started), started
        said = " ".join(log.read_text(errors="replace").split())
        assert "QR codes encode 127.0.0.1, which only this machine reaches" in said
        assert "/tv/tournaments/demo-cup" in said  # the links, now that they stay up
        # another command finds the running demo's Redis by itself, and says so
        assert json.loads(state.read_text())["pid"] == demo.pid
        export = run_module(
            "services.cli.main", "export", "no-such-game", env=env | {"COLUMNS": "200"}, timeout=60
        )
        assert "using the running demo's Redis" in export.stderr
        assert export.returncode == 1, export.stderr  # reached; the game is unknown there
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=60) == 128 + signal.SIGTERM
        left = procs.wait_until_none(lambda: procs.in_session(demo.pid), BOUND_S)
        assert not left, f"started {[str(p) for p in started]}; left {[str(p) for p in left]}"
        assert "never retrieved" not in log.read_text(errors="replace")
        assert not state.exists()  # a stopped demo is not found again
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        _session_kill(demo.pid)
