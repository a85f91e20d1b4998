"""What the fault tests share: a dedicated redis-server to stop or freeze, an app on it with
short timeouts (one retry) so a fault shows fast, a seeded game, and a log rolled back with
another writer's events at the same seqs (docs/decisions/0011-faults-are-answered-not-crashed.md)."""

from __future__ import annotations

import contextlib
import gc
import tracemalloc
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeVar

from fastapi.testclient import TestClient

from contracts.envelope import Envelope
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.bootstrap import Roles, build_app
from services.platform.settings import ServiceSettings
from services.usecases.check import CheckedAppend
from tests.pipeline.factory import game_log

T = TypeVar("T")


@contextlib.contextmanager
def short_timeout_client(url: str, socket_timeout_s: float) -> Iterator[TestClient]:
    """Ingest + query (no inbox, no projector) on `url`, 4 shards, one retry, connect 0.5 s,
    pool 1 s, socket `socket_timeout_s`; server errors come back as responses."""
    settings = ServiceSettings(
        redis_url=url,
        shards=4,
        redis_retries=1,
        redis_socket_timeout_s=socket_timeout_s,
        redis_connect_timeout_s=0.5,
        redis_pool_timeout_s=1.0,
    )
    app = build_app(Roles(inbox=False, projector=False), settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def seed_game(http: TestClient, game_id: str) -> dict[str, object]:
    """Create `game_id` with the first 5 events of a 6-event log; `http` then carries the
    game's write token. Returns the 6th event's wire form (a valid next write)."""
    log = game_log(game_id, 6)
    created = http.post(f"/games/{game_id}/events", json=[e.to_wire() for e in log[:5]])
    assert created.status_code == 201, created.text
    http.headers["Authorization"] = f"Bearer {created.json()['write_token']}"
    return log[5].to_wire()


class RolledBack(NamedTuple):
    """A rolled-back store: its backend, the event log on it, the checked append whose cache
    still holds the lost events, and the original 10-event log."""

    backend: MemoryBackend
    store: MemoryEventLog
    checked: CheckedAppend
    log: list[Envelope]


async def rolled_back_and_rewritten(game_id: str) -> RolledBack:
    """10 events appended through a `CheckedAppend`, then the store rolled back to 5 (as Redis
    back from an older RDB) and 5 other events stored at seqs 6-10 by another writer, so the
    stored version equals the cache's again."""
    backend = MemoryBackend(shards=4)
    store = MemoryEventLog(backend)
    checked = CheckedAppend(store)
    log = game_log(game_id, 10)
    await checked.append(game_id, log)
    del backend.logs[game_id][5:]
    for event in log[5:]:
        del backend.ids[game_id][str(event.event_id)]
    await store.append(game_id, game_log(game_id, 10, seed=1)[5:])  # another writer
    return RolledBack(backend, store, checked, log)


def kept_by(build: Callable[[], T]) -> tuple[T, int]:
    """`build()`'s result and the bytes it keeps allocated once built (tracemalloc, after a
    collection: what `build` dropped on the way does not count)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        built = build()
        gc.collect()
        return built, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def freed_by(clear: Callable[[], None]) -> int:
    """Bytes that `clear()` frees (traced allocations before minus after; tracemalloc must be
    tracing)."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    clear()
    gc.collect()
    return before - tracemalloc.get_traced_memory()[0]
