"""Truthful refusals: a refused batch names the event at fault (`index`, 0-based position in
the batch) and, for a version conflict, the version the game holds; the HTTP door and the
inbox's dead letters carry the same problem members (`errors` the same on both).

The doors are the real ones (the HTTP router, the inbox handler) on in-memory ports.
Hand-computed values: a game at version 2 sent seqs 3, 4, 5, 6, 9: the fifth event (index 4)
says the game is at version 8 (seq 9 - 1); the game holds 2 (and nothing of the batch is
stored).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from services.adapters.memory.inbox import MemoryInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import Ports, memory_ports, use_cases
from services.doors.ingest.http import ingest_router
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.errors import VersionConflict
from services.usecases.check import first_fresh
from services.usecases.inbox.settle import Inbox
from services.usecases.plan import Plan
from tests.pipeline.factory import corrected, game_log

TOKEN = "owner-of-g1-chose-this-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
PROBLEM_MEMBERS = ("type", "title", "status", "detail", "rule", "field", "index", "errors")


@dataclass
class Doors:
    ports: Ports
    http: httpx.AsyncClient
    inbox: Inbox


@pytest.fixture
async def doors() -> AsyncIterator[Doors]:
    ports = memory_ports(4)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    app = FastAPI()
    app.include_router(ingest_router(record))
    queue = MemoryInboxQueue(Keys(4).inbox, game_of_entry)
    inbox = Inbox(queue, Keys(4), record, ports.letters, max_entry_bytes=4096, form=INBOX_FORM)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ingest") as http:
        yield Doors(ports, http, inbox)


def wire(*events: Any) -> list[dict[str, Any]]:
    return [e.to_wire() for e in events]


async def at_version_2(doors: Doors) -> list[Any]:
    """Game g1 with seqs 1 and 2 stored; returns a log of 9 events to draw from."""
    log = game_log("g1", 9)
    stored = await doors.http.post("/games/g1/events", json=wire(*log[:2]), headers=AUTH)
    assert stored.status_code == 201, stored.text
    return log


async def test_a_gap_inside_a_batch_names_the_event_and_the_version_the_game_holds(
    doors: Doors,
) -> None:
    log = await at_version_2(doors)
    batch = wire(*log[2:6], log[8])  # seqs 3, 4, 5, 6, 9
    answer = await doors.http.post("/games/g1/events", json=batch, headers=AUTH)
    assert answer.status_code == 409, answer.text
    body = answer.json()
    assert (body["rule"], body["field"], body["index"]) == ("log.expected_version", "seq", 4)
    assert (body["expected"], body["actual"], body["version"]) == (8, 2, 2)
    assert await doors.ports.log.version("g1") == 2  # nothing of the batch stored


async def test_a_stale_batch_after_duplicates_names_its_first_new_event(doors: Doors) -> None:
    log = await at_version_2(doors)
    # seqs 1 and 2 again (duplicates, skipped), then a new event claiming seq 5
    batch = wire(log[0], log[1], corrected("g1", 5, "ann", 2))
    answer = await doors.http.post("/games/g1/events", json=batch, headers=AUTH)
    assert answer.status_code == 409, answer.text
    body = answer.json()
    assert (body["index"], body["expected"], body["actual"], body["version"]) == (2, 4, 2, 2)


async def test_a_rule_breach_in_a_batch_names_the_event(doors: Doors) -> None:
    log = await at_version_2(doors)
    batch = wire(log[2], log[3], corrected("g1", 5, "nobody", 1))  # seqs 3, 4, 5
    answer = await doors.http.post("/games/g1/events", json=batch, headers=AUTH)
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert (body["rule"], body["index"]) == ("correction.unknown_player", 2)
    assert await doors.ports.log.version("g1") == 2


async def test_a_single_envelope_refusal_has_no_index(doors: Doors) -> None:
    """One envelope (not an array) is not a batch: no `index`, as for a schema refusal."""
    await at_version_2(doors)
    one = corrected("g1", 3, "nobody", 1).to_wire()
    answer = await doors.http.post("/games/g1/events", json=one, headers=AUTH)
    assert answer.status_code == 422, answer.text
    assert "index" not in answer.json()


async def letter_of(doors: Doors, data: bytes) -> dict[str, Any]:
    before = len(await doors.ports.letters.read())
    entry_id = f"1-{before + 1}".encode()  # a letter is kept once per entry id
    await doors.inbox.process([entry_id], [{b"data": data, b"token": TOKEN.encode()}])
    letters = await doors.ports.letters.read()
    assert len(letters) == before + 1
    return dict(letters[-1].letter.reason)


async def test_the_inbox_letter_carries_the_problem_the_http_door_answers(doors: Doors) -> None:
    """The same refused batch through both doors: every problem member HTTP sends is in the
    dead letter's reason with the same value (`errors`, `index`, `version` included)."""
    log = await at_version_2(doors)
    gap = wire(*log[2:6], log[8])
    bad_field = [*wire(log[2]), {**log[3].to_wire(), "seq": "four"}]
    for batch in (gap, bad_field):
        answer = await doors.http.post("/games/g1/events", json=batch, headers=AUTH)
        problem = answer.json()
        reason = await letter_of(doors, json.dumps(batch).encode())
        assert {k: reason.get(k) for k in problem} == problem
    loc = problem["errors"][0]["loc"]  # the schema refusal's list: body, index, tag, field
    assert (loc[:2], loc[-1], problem["index"]) == (["body", 1], "seq", 1)
    assert reason["kind"] == "invalid"  # the refusal's own members stay
    assert await doors.ports.log.version("g1") == 2


async def test_an_oversized_inbox_entry_names_the_field_and_says_why(doors: Doors) -> None:
    padded = json.dumps(wire(*game_log("g2", 1))).encode() + b" " * 8192
    reason = await letter_of(doors, padded)
    assert (reason["rule"], reason["field"], reason["status"]) == ("body.too_large", "body", 413)
    assert reason["message"] == "an inbox entry is limited to 4096 bytes, as a request body"
    assert reason["detail"] == reason["message"]
    assert set(PROBLEM_MEMBERS[:6]) <= set(reason)


def test_a_conflict_the_log_itself_refuses_names_the_first_new_event() -> None:
    """The append's own version check (another writer landed between the plan and the append)
    knows no batch: the conflict is given the position of the plan's first new event."""
    log = game_log("g1", 4)
    plan = Plan("g1", log, None, None, fresh=list(log[2:]))  # seqs 1, 2 known, 3, 4 new
    conflict = first_fresh(plan, VersionConflict(2, 3))
    assert (conflict.index, conflict.expected, conflict.actual) == (2, 2, 3)
    kept = first_fresh(plan, VersionConflict(2, 3, index=0))  # one already named stays
    assert kept.index == 0
