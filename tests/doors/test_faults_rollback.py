"""Ingest after Redis comes back without its last writes (an RDB rollback), over HTTP.

A real redis-server snapshots (SAVE) after the game's first 5 events, takes 40 more, is killed
(SIGKILL: nothing saved) and restarted from the snapshot: it holds 5 events again. The ingest
process kept running and still has the 45-event game in its state cache. Re-sending the 40 lost
events must store them again (Redis answers what it holds), not answer `duplicate: true` from
the cache. Source: docs/decisions/0011-faults-are-answered-not-crashed.md ("After Redis comes back without its last writes ... 40 of 40").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.adapters.redis.keys import Keys
from services.bootstrap import Roles, build_app
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import game_log
from tests.redis_fixture import RedisServer, sync_client

pytestmark = pytest.mark.redis
KEYS = Keys(4)
GAME = "tr-rollback-1"


@pytest.fixture
def snapshot_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A dedicated redis-server keeping only what an explicit SAVE writes (dump.rdb)."""
    with RedisServer(tmp_path) as server:
        yield server


def test_events_lost_in_a_rollback_are_stored_again_not_called_duplicates(
    snapshot_redis: RedisServer,
) -> None:
    settings = ServiceSettings(redis_url=snapshot_redis.url, shards=KEYS.shards)
    app = build_app(Roles(inbox=False, projector=False, query=False), settings)
    log = game_log(GAME, 45)
    head, tail = log[:5], log[5:]
    with TestClient(app) as http:
        created = http.post(f"/games/{GAME}/events", json=[e.to_wire() for e in head])
        assert created.status_code == 201, created.text
        http.headers["Authorization"] = f"Bearer {created.json()['write_token']}"
        admin = sync_client(snapshot_redis.url)
        assert admin.save()  # the snapshot Redis will come back from: 5 events
        admin.close()
        for event in tail:
            assert http.post(f"/games/{GAME}/events", json=event.to_wire()).status_code == 201

        snapshot_redis.restart(kill=True)  # back from dump.rdb: the last 40 events are gone
        admin = sync_client(snapshot_redis.url)
        before = admin.xlen(KEYS.game_stream(GAME))

        answers = [http.post(f"/games/{GAME}/events", json=e.to_wire()) for e in tail]
        statuses = [a.status_code for a in answers]
        appended = [json.loads(a.content)["appended"][0] for a in answers if a.status_code == 201]
        duplicates = sum(1 for a in appended if a["duplicate"])
        stored = admin.xlen(KEYS.game_stream(GAME))
        again = http.post(f"/games/{GAME}/events", json=tail[-1].to_wire()).json()
        admin.close()
    print(
        f"\nrollback: stored before 45, after restart {before}; re-sent {len(tail)}, "
        f"answered 201 {statuses.count(201)}, duplicate {duplicates}, stored now {stored}"
    )
    assert before == 5
    assert statuses == [201] * len(tail)
    assert duplicates == 0, "the cache acknowledged events Redis no longer holds"
    assert [a["seq"] for a in appended] == list(range(6, 46))
    assert stored == 45
    # A real retry now is a duplicate, answered with the original seq.
    assert again["appended"] == [{"event_id": str(tail[-1].event_id), "seq": 45, "duplicate": True}]


async def test_inbox_batches_after_a_lost_tail_store_again() -> None:
    """The inbox path (`append_many`): the tail deleted from the log and the id index directly
    (a rollback, simulated) while the cache holds it; re-sent, every event is stored again."""
    from services.adapters.memory.store import MemoryBackend, MemoryEventLog
    from services.ports.eventlog import AppendRequest, AppendResult
    from services.usecases.check import CheckedAppend

    backend = MemoryBackend(shards=4)
    checked = CheckedAppend(MemoryEventLog(backend))
    log = game_log(GAME, 45)
    await checked.append(GAME, log[:5])
    for event in log[5:]:
        await checked.append(GAME, [event])
    del backend.logs[GAME][5:]
    for event in log[5:]:
        del backend.ids[GAME][str(event.event_id)]

    outcomes = await checked.append_many([AppendRequest(GAME, [e]) for e in log[5:]])
    results = [o for o in outcomes if isinstance(o, AppendResult)]
    duplicates = sum(e.duplicate for r in results for e in r.events)
    print(
        f"\ninbox rollback: re-sent 40, stored {len(results)}, duplicate {duplicates}, "
        f"log now {len(backend.logs[GAME])}"
    )
    assert (len(results), duplicates, len(backend.logs[GAME])) == (40, 0, 45)


async def test_a_lost_event_whose_seq_was_taken_is_a_conflict_not_a_duplicate() -> None:
    """Rollback of 5 events, then another writer stores 5 different events at the same seqs:
    the stored version equals the cache's again. A re-sent lost event is refused as a version
    conflict (its seq is taken), never acknowledged as a duplicate: the ids are checked too."""
    from services.ports.errors import VersionConflict
    from tests.doors.fault_support import rolled_back_and_rewritten

    _, _, checked, log = await rolled_back_and_rewritten(GAME)

    outcomes: list[str] = []
    for event in log[5:]:
        try:
            result = await checked.append(GAME, [event])
            outcomes.append("duplicate" if result.events[0].duplicate else "stored")
        except VersionConflict:
            outcomes.append("conflict")
    print(f"\nseq taken after a rollback: re-sent 5 -> {outcomes}")
    assert outcomes == ["conflict"] * 5


async def test_a_new_event_after_a_rollback_is_a_conflict_naming_the_stored_version() -> None:
    """The cache is at 45, Redis at 5: the next event (seq 46) is refused with the version
    Redis holds, never acknowledged; the writer then learns it must re-send from seq 6."""
    from services.adapters.memory.store import MemoryBackend, MemoryEventLog
    from services.ports.errors import VersionConflict
    from services.usecases.check import CheckedAppend

    backend = MemoryBackend(shards=4)
    checked = CheckedAppend(MemoryEventLog(backend))
    log = game_log(GAME, 46)
    await checked.append(GAME, log[:45])
    del backend.logs[GAME][5:]
    for event in log[5:45]:
        del backend.ids[GAME][str(event.event_id)]
    with pytest.raises(VersionConflict) as refused:
        await checked.append(GAME, [log[45]])
    print(f"\nnew event after a rollback: {refused.value}; stored {len(backend.logs[GAME])}")
    assert (refused.value.expected, refused.value.actual) == (45, 5)
    assert len(backend.logs[GAME]) == 5
