"""The dry run: `POST /games/{id}/events?dry_run=true` answers as the write would (the same
body, or the same problem) and stores nothing: no event, no token, no cached state.

Checked by sending each request twice to twin services (the same history in two in-memory
stores): a dry run to one, the write to the other; the bodies must be equal, and the dry run's
store must be unchanged. Hand-computed: a game at version 2 sent seqs 3, 4 answers
`appended` 3, 4 and version 4; sent seqs 1, 2 again, duplicates at 1, 2 and version 2.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from services.bootstrap import Ports, memory_ports, use_cases
from services.doors.ingest.http import ingest_router
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import corrected, game_log

TOKEN = "owner-of-g1-chose-this-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
LOG = game_log("g1", 9)


@dataclass
class Twin:
    ports: Ports
    http: httpx.AsyncClient


async def twin() -> AsyncIterator[Twin]:
    ports = memory_ports(4)
    app = FastAPI()
    app.include_router(ingest_router(use_cases(ports, ServiceSettings(shards=4)).record))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ingest") as http:
        stored = await http.post(
            "/games/g1/events", json=[e.to_wire() for e in LOG[:2]], headers=AUTH
        )
        assert stored.status_code == 201, stored.text
        yield Twin(ports, http)


@pytest.fixture
async def dry() -> AsyncIterator[Twin]:
    async for t in twin():
        yield t


@pytest.fixture
async def wet() -> AsyncIterator[Twin]:
    async for t in twin():
        yield t


async def both(
    dry: Twin, wet: Twin, game: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[httpx.Response, httpx.Response]:
    """The dry run on `dry`, the write on `wet`; `dry`'s game must be unchanged."""
    before = await dry.ports.log.read(game)
    tried = await dry.http.post(
        f"/games/{game}/events", params={"dry_run": "true"}, json=body, headers=headers
    )
    written = await wet.http.post(f"/games/{game}/events", json=body, headers=headers)
    assert await dry.ports.log.read(game) == before  # nothing stored
    return tried, written


async def test_an_accepted_batch_answers_the_write_body_and_stores_nothing(
    dry: Twin, wet: Twin
) -> None:
    tried, written = await both(dry, wet, "g1", [e.to_wire() for e in LOG[2:4]], AUTH)
    assert (tried.status_code, written.status_code) == (200, 201)
    assert tried.json() == written.json()
    assert [(a["seq"], a["duplicate"]) for a in tried.json()["appended"]] == [
        (3, False),
        (4, False),
    ]
    assert tried.json()["version"] == 4
    # the dry run left no state behind: the same events are still new to it
    again = await dry.http.post(
        "/games/g1/events", json=[e.to_wire() for e in LOG[2:4]], headers=AUTH
    )
    assert again.json() == written.json()


async def test_duplicates_answer_as_the_retry_would(dry: Twin, wet: Twin) -> None:
    body = [e.to_wire() for e in (*LOG[:2], LOG[2], LOG[2])]  # seqs 1, 2 known; 3 twice
    tried, written = await both(dry, wet, "g1", body, AUTH)
    assert tried.json() == written.json()
    assert [(a["seq"], a["duplicate"]) for a in tried.json()["appended"]] == [
        (1, True),
        (2, True),
        (3, False),
        (3, True),
    ]


@pytest.mark.parametrize(
    ("body", "headers", "status", "rule"),
    [
        ([LOG[2].to_wire()], None, 401, "auth.token_required"),
        ([LOG[2].to_wire()], {"Authorization": "Bearer " + "x" * 40}, 403, "auth.token_rejected"),
        ([LOG[2].to_wire(), LOG[4].to_wire()], AUTH, 409, "log.expected_version"),
        ([corrected("g1", 3, "nobody", 1).to_wire()], AUTH, 422, "correction.unknown_player"),
        ([{**LOG[2].to_wire(), "seq": "three"}], AUTH, 422, "schema.field"),
    ],
)
async def test_a_refusal_is_the_same_problem(
    dry: Twin,
    wet: Twin,
    body: Any,
    headers: dict[str, str] | None,
    status: int,
    rule: str,
) -> None:
    tried, written = await both(dry, wet, "g1", body, headers)
    assert (tried.status_code, written.status_code) == (status, status)
    assert tried.json() == written.json()
    assert tried.json()["rule"] == rule
    assert tried.headers.get("www-authenticate") == written.headers.get("www-authenticate")


async def test_a_creating_dry_run_creates_nothing(dry: Twin, wet: Twin) -> None:
    """A dry run of the creating write of g2 with a chosen token: the write's body, and g2 is
    still free afterwards (its token was not stored: another token may create it)."""
    start = game_log("g2", 1)[0].to_wire()
    tried, written = await both(dry, wet, "g2", start, AUTH)
    assert (tried.status_code, tried.json()) == (200, written.json())
    assert await dry.ports.log.version("g2") == 0
    other = {"Authorization": "Bearer " + "o" * 40}
    created = await dry.http.post("/games/g2/events", json=start, headers=other)
    assert created.status_code == 201, created.text


async def test_a_dry_run_hands_back_no_generated_token(dry: Twin, wet: Twin) -> None:
    """Without a chosen token the write generates one; the dry run's would be stored nowhere,
    so it answers the write's body without `write_token`."""
    start = game_log("g3", 1)[0].to_wire()
    tried, written = await both(dry, wet, "g3", start)
    assert "write_token" in written.json()
    assert tried.json() == {k: v for k, v in written.json().items() if k != "write_token"}
    assert await dry.ports.log.version("g3") == 0
