"""The replay workers live no longer than their parent: the app's lifespan shutdown ends the
pool it started (unless another holder still holds it), and a worker whose parent is killed
exits by itself (Linux: the parent-death signal; elsewhere: the watch on the parent's pipe),
while the end of the mere *thread* that spawned it does not end it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from services.bootstrap import Roles, build_app
from services.platform.settings import ServiceSettings
from services.runtime import pool as replay_pool
from services.usecases.readmodels import offloop
from tests import procs
from tests.query.pool_orphan import PARENT

ROOT = Path(__file__).resolve().parents[2]
GONE_BOUND_S = 5.0


def _fresh_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """No pool and no holder (the session's hold and pool are put back after the test)."""
    monkeypatch.setattr(replay_pool, "_pool", None)
    monkeypatch.setattr(replay_pool, "_holders", 0)


@pytest.mark.redis
async def test_the_app_lifespan_ends_the_workers_it_started(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh_pool(monkeypatch)
    app = build_app(
        Roles(ingest=False, inbox=False, projector=False),
        ServiceSettings(redis_url=clean_redis_url),
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as client:
            assert (await client.get("/healthz")).status_code == 200
        pool = replay_pool._pool
        assert pool is not None
        pool.submit(int).result(60)  # the worker is up (past its warm-up)
        workers = list(pool._processes.values())
        assert workers
        assert all(w.is_alive() for w in workers)
    print(f"workers after the lifespan's end: {[(w.pid, w.exitcode) for w in workers]}")
    assert not any(w.is_alive() for w in workers)
    assert replay_pool._pool is None


def test_a_holder_left_keeps_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_pool(monkeypatch)
    replay_pool.hold_shared_pool()
    replay_pool.hold_shared_pool()
    pool = offloop.shared_pool()
    pool.submit(int).result(60)
    workers = list(pool._processes.values())
    replay_pool.let_go_shared_pool()
    assert replay_pool._pool is pool
    assert all(w.is_alive() for w in workers)
    replay_pool.let_go_shared_pool()
    assert replay_pool._pool is None
    assert not any(w.is_alive() for w in workers)


def _parent(how: str, spawner: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", PARENT, how, spawner],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def _worker_left(proc: subprocess.Popen[str], worker: int) -> list[procs.Proc]:
    return [p for p in procs.in_session(proc.pid) if p.pid == worker]


def _cleanup(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()
    for left in procs.in_session(proc.pid):
        os.kill(left.pid, signal.SIGKILL)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("how", ["linux", "watchdog"])
def test_a_worker_exits_when_its_parent_is_killed(how: str) -> None:
    proc, worker = _parent(how, "main")
    try:
        assert _worker_left(proc, worker)
        proc.kill()
        proc.wait()
        left = procs.wait_until_none(lambda: _worker_left(proc, worker), GONE_BOUND_S)
        assert not left, f"{how}: the worker outlived its killed parent: {left}"
    finally:
        _cleanup(proc)


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_the_end_of_the_spawning_thread_does_not_end_the_worker() -> None:
    proc, worker = _parent("linux", "thread")  # the spawning thread has ended
    try:
        time.sleep(1.5)  # the kernel signals at the thread's end: a wrong handler exits at once
        assert _worker_left(proc, worker), "the worker died with the thread that spawned it"
        proc.kill()
        proc.wait()
        assert not procs.wait_until_none(lambda: _worker_left(proc, worker), GONE_BOUND_S)
    finally:
        _cleanup(proc)
