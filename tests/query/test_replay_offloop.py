"""A long replay does not hold the event loop: `/healthz` answers while `/series` of a
6,000-event game runs in the replay worker process (behaviour only, no timing threshold: the
order of completion), a replay is computed once per (game, version) and once for concurrent
readers, an exception that cannot cross the process boundary comes back as `ReplayFailed`, and
a dead worker does not break replays for good; given a `LogSource` the worker reads the log
itself (a storage error there comes back as itself); a worker pauses the collector during a
replay only. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from domain.errors import RuleViolation
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.bench.fold_cost import long_game
from services.bootstrap import replay_log
from services.platform.settings import ServiceSettings
from services.runtime.worker import ReplayFailed
from services.usecases.readmodels import offloop, work
from services.usecases.readmodels.offloop import LogSource, Replays
from tests.query.conftest import Seeder

pytestmark = pytest.mark.redis

FLAGS = Path(tempfile.gettempdir())


def held_series(events: Sequence[Envelope]) -> bytes:
    """In the worker: say it started, wait (at most 10 s) to be released, then the series."""
    game = events[0].game_id
    (FLAGS / f"started-{game}").touch()
    deadline = time.monotonic() + 10
    while not (FLAGS / f"release-{game}").exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    return work.series_json(events)


def _game(n: int) -> list[Envelope]:
    """A long game under a fresh id (the flag files and caches are per game)."""
    game = f"offloop-{uuid.uuid4().hex[:8]}"
    return [parse_event_json(json.dumps({**json.loads(x), "game_id": game})) for x in long_game(n)]


async def _in_memory(n: int) -> tuple[MemoryEventLog, str]:
    """A fresh `n`-event game (`_game`) appended to a new in-memory log; the log, the game id."""
    log = MemoryEventLog(MemoryBackend())
    events = _game(n)
    await log.append(events[0].game_id, events)
    return log, events[0].game_id


async def test_healthz_answers_while_a_6000_event_series_runs(
    api: httpx.AsyncClient, seeder: Seeder, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = _game(6_000)
    game = events[0].game_id
    await seeder.append(events)
    monkeypatch.setattr(work, "series_json", held_series)  # sent to the worker by name
    done: list[str] = []

    async def series() -> httpx.Response:
        response = await api.get(f"/games/{game}/series")
        done.append("series")
        return response

    async def healthz() -> httpx.Response:
        while not (FLAGS / f"started-{game}").exists():  # the replay is running
            await asyncio.sleep(0.005)
        response = await api.get("/healthz")
        done.append("healthz")
        (FLAGS / f"release-{game}").touch()
        return response

    try:
        got_series, got_health = await asyncio.wait_for(asyncio.gather(series(), healthz()), 60)
    finally:
        for name in (f"started-{game}", f"release-{game}"):
            (FLAGS / name).unlink(missing_ok=True)
    assert got_health.status_code == 200
    assert got_series.status_code == 200
    assert done == ["healthz", "series"]
    body = got_series.json()
    assert len(body["per_event"]) == 6_000
    assert body["per_event"][-1]["seq"] == 6_000


async def test_a_replay_is_kept_per_game_version(api: httpx.AsyncClient, seeder: Seeder) -> None:
    events = _game(200)
    await seeder.append(events[:150])
    game = events[0].game_id
    first = (await api.get(f"/games/{game}/timeline")).json()
    assert len(first["events"]) == 150
    assert (await api.get(f"/games/{game}/timeline")).json() == first
    await seeder.append(events[150:])  # a new version is a new replay, not the cached one
    assert len((await api.get(f"/games/{game}/timeline")).json()["events"]) == 200


CALLS: list[int] = []
_gate = threading.Event()


def counted(events: Sequence[Envelope]) -> int:
    CALLS.append(len(events))
    _gate.wait(5)
    return len(events)


async def test_concurrent_readers_of_one_version_share_one_replay() -> None:
    backend = MemoryBackend()
    log = MemoryEventLog(backend)
    events = _game(50)
    await log.append(events[0].game_id, events)
    replays = Replays(log, executor=ThreadPoolExecutor(2))  # threads: the calls are countable
    CALLS.clear()
    _gate.clear()
    readers = [
        asyncio.ensure_future(replays.run("n", events[0].game_id, 50, counted)) for _ in range(5)
    ]
    await asyncio.sleep(0.2)
    _gate.set()
    got = await asyncio.gather(*readers)
    print(f"readers {len(got)}, replays run {len(CALLS)}")
    assert got == [50] * 5
    assert CALLS == [50]


def breaks_a_rule(events: Sequence[Envelope]) -> int:
    raise RuleViolation("log.seq_gap", "seq 7 after 5", "seq")  # not picklable as itself


async def test_an_exception_that_cannot_be_pickled_comes_back_as_replay_failed() -> None:
    backend = MemoryBackend()
    log = MemoryEventLog(backend)
    events = _game(5)
    await log.append(events[0].game_id, events)
    with pytest.raises(ReplayFailed, match=r"RuleViolation: log\.seq_gap"):
        await Replays(log).run("broken", events[0].game_id, 5, breaks_a_rule)
    # the pool still works afterwards
    assert await Replays(log).run("n", events[0].game_id, 5, offloop_len) == 5


def offloop_len(events: Sequence[Envelope]) -> int:
    return len(events)


async def test_a_killed_worker_does_not_break_replays_for_good() -> None:
    backend = MemoryBackend()
    log = MemoryEventLog(backend)
    events = _game(5)
    game = events[0].game_id
    await log.append(game, events)
    assert await Replays(log).run("before", game, 5, offloop_len) == 5
    pool = offloop.shared_pool()
    pids = list(pool._processes)  # the test kills the workers
    for pid in pids:
        os.kill(pid, 9)
    await asyncio.sleep(0.2)
    got = await Replays(log).run("after", game, 5, offloop_len)
    print(f"workers killed {len(pids)}, replay after the kill returned {got} events")
    assert got == 5
    assert offloop.shared_pool() is not pool


def sixty_bytes(events: Sequence[Envelope]) -> bytes:
    CALLS.append(len(events))
    return b"x" * 60


async def test_results_kept_are_bounded_in_bytes() -> None:
    log, game = await _in_memory(5)
    replays = Replays(log, executor=ThreadPoolExecutor(1), max_bytes=100)
    CALLS.clear()
    for what in ("a", "b", "a"):  # "a" was dropped for "b" (120 bytes > 100): computed again
        assert await replays.run(what, game, 5, sixty_bytes) == b"x" * 60
    print(f"runs {len(CALLS)} for 3 reads of 2 results under a 100-byte bound")
    assert len(CALLS) == 3


async def test_the_worker_reads_the_log_itself(redis_url: str, seeder: Seeder) -> None:
    events = _game(300)
    game = events[0].game_id
    await seeder.append(events)
    empty = MemoryEventLog(MemoryBackend())  # what the parent would read: nothing
    source = LogSource(replay_log, (ServiceSettings(redis_url=redis_url, shards=16),))
    replays = Replays(empty, source=source)
    assert await replays.run("n", game, 300, offloop_len) == 300
    assert await replays.run("n", game, 200, offloop_len, upto=120) == 120
    assert await replays.run("series", game, 300, work.series_json) == work.series_json(events)


async def test_a_storage_error_in_the_worker_comes_back_as_itself() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = ServiceSettings(redis_url=f"redis://127.0.0.1:{port}/0", redis_retries=0)
    replays = Replays(MemoryEventLog(MemoryBackend()), source=LogSource(replay_log, (settings,)))
    with pytest.raises(RedisConnectionError):
        await replays.run("n", "no-redis", 5, offloop_len)


async def test_json_results_are_kept_by_their_own_length() -> None:
    log, game = await _in_memory(300)
    # 300 events folded would be estimated at 1 MB; two 60-byte answers fit in 300 bytes
    replays = Replays(log, executor=ThreadPoolExecutor(1), max_bytes=300)
    CALLS.clear()
    for what in ("a", "b", "a", "b"):
        assert await replays.run(what, game, 300, sixty_bytes) == b"x" * 60
    print(f"runs {len(CALLS)} for 4 reads of 2 results of 60 bytes under a 300-byte bound")
    assert len(CALLS) == 2


def collector_on(events: Sequence[Envelope]) -> bool:
    return gc.isenabled()


async def test_a_worker_pauses_the_collector_during_a_replay_only() -> None:
    log, game = await _in_memory(5)
    assert await Replays(log).run("gc", game, 5, collector_on) is False  # in the worker
    pool = offloop.shared_pool()
    after = pool.submit(gc.isenabled).result(30)  # a call outside a replay, same worker
    frozen = pool.submit(gc.get_freeze_count).result(30)
    print(f"collector on after the replay: {after}; objects frozen at warm-up: {frozen}")
    assert after is True
    assert frozen > 0
    in_thread = Replays(log, executor=ThreadPoolExecutor(1))  # not a worker: left alone
    assert await in_thread.run("gc", game, 5, collector_on) is True
