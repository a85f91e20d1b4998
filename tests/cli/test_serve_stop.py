"""A stopped `scoreledger serve` leaves nothing running: not its replay worker, not
multiprocessing's resource tracker, whether it was stopped gracefully (SIGTERM, SIGINT: the
lifespan's shutdown ends the pool) or killed (SIGKILL: the worker notices its parent's end).

`serve` runs in its own session (`start_new_session`), so whatever it starts is found by the
session id even once re-parented. Runs on the suite's Redis (single node and cluster).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests import procs
from tests.cli.conftest import ROOT, serve_argv
from tests.redis_fixture import free_port

EXAMPLE = ROOT / "contracts" / "examples" / "trickerion-4p-dark-alley-academy.jsonl"
STOP_BOUND_S = 5.0
"""Nothing of `serve` may be alive this long after the signal (the issue's bound)."""

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def _start_serve(redis_url: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            serve_argv(port, redis_url),
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return proc, f"http://127.0.0.1:{port}"


def _replay_worker_running(url: str, session: int) -> list[procs.Proc]:
    """Publish the example game, ask for two replays, and return `serve`'s replay workers."""
    procs.wait_listening(int(url.rsplit(":", 1)[1]))
    with httpx.Client(base_url=url, timeout=60) as client:
        assert client.get("/healthz").status_code == 200
        events = [line for line in EXAMPLE.read_text().splitlines() if line.strip()]
        game = json.loads(events[0])["game_id"]
        body = "[" + ",".join(events) + "]"
        created = client.post(
            f"/games/{game}/events", content=body, headers={"content-type": "application/json"}
        )
        assert created.status_code == 201, created.text
        assert client.get(f"/games/{game}/standings", params={"at_seq": 20}).status_code == 200
        assert client.get(f"/games/{game}/series").status_code == 200
    return [p for p in procs.in_session(session) if "multiprocessing.spawn" in p.cmdline]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
def test_a_stopped_serve_leaves_no_process(
    clean_redis_url: str, tmp_path: Path, stop: signal.Signals
) -> None:
    log = tmp_path / "serve.log"
    proc, url = _start_serve(clean_redis_url, log)
    try:
        workers = _replay_worker_running(url, proc.pid)
        assert workers, f"no replay worker in serve's session: {procs.in_session(proc.pid)}"
        started = [str(p) for p in procs.in_session(proc.pid)]
        assert any("resource_tracker" in p for p in started), started

        proc.send_signal(stop)
        stopped_at = time.monotonic()
        # its own exit (a graceful one waits for the lifespan): by the signal it was sent
        assert proc.wait(timeout=60) == -stop
        left = procs.wait_until_none(
            lambda: procs.in_session(proc.pid),
            max(0.0, STOP_BOUND_S - (time.monotonic() - stopped_at)),
        )
        assert not left, (
            f"{stop.name}: alive {STOP_BOUND_S} s after the signal (started: {started}): "
            + "; ".join(map(str, left))
        )
    finally:
        _kill_session(proc)
    if stop != signal.SIGKILL:
        assert "Application shutdown complete" in log.read_text()


def _kill_session(proc: subprocess.Popen[bytes]) -> None:
    """Whatever is left of the test's `serve` (only on failure), SIGKILLed by its id."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for left in procs.in_session(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(left.pid, signal.SIGKILL)
