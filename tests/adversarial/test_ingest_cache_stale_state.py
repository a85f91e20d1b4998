"""Regression tests (docs/decisions/0011-faults-are-answered-not-crashed.md): the ingest cache
(services/usecases/check.py) plans a batch of new events on its cached state; the append's
expected head (the cached state's last event id, checked by the append script) catches a
stored log that differs at the same version, and the batch is checked again on the stored log.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from contracts.envelope import Envelope
from contracts.events import parse_event, parse_event_json
from domain.errors import RuleViolation
from domain.fold import fold
from services.ports.errors import VersionConflict
from services.usecases.check import CheckedAppend
from tests.doors.fault_support import rolled_back_and_rewritten
from tests.pipeline.factory import game_log

GAME = "tr-break-cache-1"


def _void(game_id: str, seq: int, target: uuid.UUID) -> Envelope:
    return parse_event(
        {
            "event_id": str(uuid.uuid4()),
            "game_id": game_id,
            "seq": seq,
            "type": "game.event_voided",
            "occurred_at": "2026-11-30T10:00:00Z",
            "actor": "referee",
            "payload": {"voided_event_id": str(target), "reason": "dispute", "referee": "ref"},
        }
    )


async def test_new_event_after_rollback_and_other_writer_is_checked_on_the_stored_log() -> None:
    """Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): Redis rolls back 5 events and another writer stores 5 different events at
    the same seqs (the version equals the cache's again). A new event (seq 11) voiding an
    event Redis no longer holds is refused (the expected head differs, the batch is checked
    on the stored log), and the stored log still folds."""
    _, store, checked, log = await rolled_back_and_rewritten(GAME)

    lost = log[7].event_id  # only in the cache's history now
    outcome = "stored"
    try:
        await checked.append(GAME, [_void(GAME, 11, lost)])
    except (RuleViolation, VersionConflict) as refused:
        outcome = f"refused {refused}"
    try:
        fold(await store.read(GAME))
        folds = "yes"
    except RuleViolation as broken:
        folds = f"no: {broken}"
    print(
        f"\nvoid of a lost event after rollback + other writer: {outcome}; stored log folds: {folds}"
    )
    fresh = "stored"
    try:  # a process without the stale cache (restarted ingest) and the next correction
        from tests.pipeline.factory import corrected

        await CheckedAppend(store).append(GAME, [corrected(GAME, 12, "ann", 1)])
    except (RuleViolation, VersionConflict) as refused:
        fresh = f"refused {type(refused).__name__}: {refused}"
    print(f"next event via a fresh ingest: {fresh}")
    assert folds == "yes", "an event checked on a stale cache was stored; the log does not fold"


@pytest.mark.redis
def test_over_http_a_void_checked_on_a_stale_cache_is_stored(tmp_path: Path) -> None:
    """Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): the same over HTTP on a real redis-server: ingest A caches a 10-event game;
    Redis comes back from a snapshot of 5 (SIGKILL after SAVE); ingest B (another process, no
    cache) stores 5 other events; A is sent a void of one of the lost events as seq 11. A
    refuses it (422) and the stored log still folds."""
    from fastapi.testclient import TestClient

    from services.adapters.redis.keys import Keys
    from services.bootstrap import Roles, build_app
    from services.platform.settings import ServiceSettings
    from tests.redis_fixture import RedisServer, sync_client

    server = RedisServer(tmp_path).start()
    try:
        settings = ServiceSettings(redis_url=server.url, shards=4)
        roles = Roles(inbox=False, projector=False, query=False)
        log, other = game_log(GAME, 10), game_log(GAME, 10, seed=1)
        with (
            TestClient(build_app(roles, settings)) as a,
            TestClient(build_app(roles, settings)) as b,
        ):
            created = a.post(f"/games/{GAME}/events", json=[e.to_wire() for e in log[:5]])
            assert created.status_code == 201, created.text
            token = {"Authorization": f"Bearer {created.json()['write_token']}"}
            admin = sync_client(server.url)
            assert admin.save()
            admin.close()
            more = a.post(
                f"/games/{GAME}/events", json=[e.to_wire() for e in log[5:]], headers=token
            )
            assert more.status_code == 201, more.text
            server.restart(kill=True)  # back with 5 events; A's cache still holds 10
            by_b = b.post(
                f"/games/{GAME}/events", json=[e.to_wire() for e in other[5:]], headers=token
            )
            assert by_b.status_code == 201, by_b.text
            void = _void(GAME, 11, log[7].event_id)
            answer = a.post(f"/games/{GAME}/events", json=void.to_wire(), headers=token)
            admin = sync_client(server.url)
            raw: Any = admin.xrange(Keys(4).game_stream(GAME))
            admin.close()
    finally:
        server.stop()
    stored = [parse_event_json(fields[b"data"]) for _, fields in raw]
    try:
        fold(stored)
        folds = "yes"
    except RuleViolation as broken:
        folds = f"no: {broken}"
    print(
        f"\nHTTP: void of a lost event via the stale ingest -> {answer.status_code}; "
        f"stored {len(stored)} events; log folds: {folds}"
    )
    assert folds == "yes", answer.text
