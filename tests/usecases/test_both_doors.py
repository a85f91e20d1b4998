"""Both doors authorize alike: the same unauthorized +1000 correction is refused by HTTP and by
the inbox, and stored by neither (docs/decisions/0009-one-authorization-on-every-write.md). The doors are the real ones (the HTTP router, the
inbox handler); the ports are in memory, and on Redis for the `redis` case."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from services.adapters.memory.inbox import MemoryInboxQueue
from services.adapters.redis.connect import connect
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import Ports, memory_ports, redis_ports, use_cases
from services.doors.ingest.http import ingest_router
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.inbox import InboxQueue
from services.usecases.inbox.settle import Inbox
from tests.pipeline.factory import corrected, started

TOKEN = "owner-of-g1-chose-this-token-0123456789"


@dataclass
class Doors:
    ports: Ports
    http: httpx.AsyncClient
    inbox: Inbox


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def doors(request: pytest.FixtureRequest) -> AsyncIterator[Doors]:
    client = None
    queue: InboxQueue = MemoryInboxQueue(Keys(4).inbox, game_of_entry)
    if request.param == "memory":
        ports = memory_ports(4)
    else:
        client = connect(request.getfixturevalue("redis_url"))
        await client.flushdb()
        ports = redis_ports(client, Keys(4))
        queue = RedisInboxQueue(client, Keys(4).inbox, game_of_entry)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    app = FastAPI()
    app.include_router(ingest_router(record))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ingest") as http:
        yield Doors(ports, http, Inbox(queue, Keys(4), record, ports.letters, form=INBOX_FORM))
    if client is not None:
        await client.aclose()


async def test_the_same_unauthorized_correction_is_refused_by_both_doors(doors: Doors) -> None:
    created = await doors.http.post(
        "/games/g1/events",
        json=started("g1").to_wire(),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert created.status_code == 201, created.text
    bonus = corrected("g1", 2, "ann", 1000).to_wire()
    wire = json.dumps(bonus).encode()
    # HTTP: no token, then a wrong one.
    none = await doors.http.post("/games/g1/events", json=bonus)
    wrong = await doors.http.post(
        "/games/g1/events", json=bonus, headers={"Authorization": "Bearer " + "x" * 40}
    )
    assert (none.status_code, wrong.status_code) == (401, 403)
    # The inbox: the same entry, no token, then the same wrong one.
    await doors.inbox.process(
        [b"1-1", b"1-2"], [{b"data": wire}, {b"data": wire, b"token": b"x" * 40}]
    )
    letters = await doors.ports.letters.read()
    assert [(x.letter.reason["kind"], x.letter.reason["rule"]) for x in letters] == [
        ("unauthorized", "auth.token_required"),
        ("forbidden", "auth.token_rejected"),
    ]
    assert [x.letter.raw for x in letters] == [wire, wire]  # the raw input is kept...
    assert all(b"x" * 40 not in x.letter.raw for x in letters)  # ...never the token
    assert {x.letter.context["inbox_id"] for x in letters} == {"1-1", "1-2"}
    # Stored by neither door.
    assert await doors.ports.log.version("g1") == 1
    # The game's owner may still make the correction, through either door.
    await doors.inbox.process([b"1-3"], [{b"data": wire, b"token": TOKEN.encode()}])
    assert await doors.ports.log.version("g1") == 2
    assert len(await doors.ports.letters.read()) == 2


async def test_an_inbox_creation_must_carry_a_chosen_token(doors: Doors) -> None:
    start = json.dumps(started("g2").to_wire()).encode()
    await doors.inbox.process([b"1-1"], [{b"data": start}])
    await doors.inbox.process([b"1-2"], [{b"data": start, b"token": b"short"}])
    reasons = [x.letter.reason["rule"] for x in await doors.ports.letters.read()]
    assert reasons == ["auth.token_required", "auth.token_format"]
    assert await doors.ports.log.version("g2") == 0
    await doors.inbox.process([b"1-3"], [{b"data": start, b"token": TOKEN.encode()}])
    assert await doors.ports.log.version("g2") == 1
    # The creator's token now works over HTTP too.
    more = await doors.http.post(
        "/games/g2/events",
        json=corrected("g2", 2, "bob", 3).to_wire(),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert more.status_code == 201


async def test_two_creators_in_one_inbox_batch_cannot_share_a_game(doors: Doors) -> None:
    """Entry 2 saw no game at lookup time (so it was checked as a creation with its own token),
    but entry 1 created the game first: the append's own token check refuses entry 2."""
    start = json.dumps(started("g3").to_wire()).encode()
    bonus = json.dumps(corrected("g3", 2, "ann", 1000).to_wire()).encode()
    await doors.inbox.process(
        [b"1-1", b"1-2"],
        [{b"data": start, b"token": TOKEN.encode()}, {b"data": bonus, b"token": b"y" * 40}],
    )
    assert await doors.ports.log.version("g3") == 1
    letters = await doors.ports.letters.read()
    assert [x.letter.reason["rule"] for x in letters] == ["auth.token_rejected"]


async def test_a_rule_refusal_stands_when_a_later_entry_takes_its_seq(doors: Doors) -> None:
    """One delivery: a correction for a player the game lacks (seq 2), then a valid event with
    the same seq. The first broke a rule on the state at its own version; the second taking
    seq 2 must not turn its letter into a version conflict (it did on a cluster run of CI)."""
    created = await doors.http.post(
        "/games/g1/events",
        json=started("g1").to_wire(),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert created.status_code == 201, created.text
    breaker = json.dumps(corrected("g1", 2, "nobody", 1).to_wire()).encode()
    valid = json.dumps(corrected("g1", 2, "ann", 1).to_wire()).encode()
    await doors.inbox.process(
        [b"1-1", b"1-2"],
        [{b"data": breaker, b"token": TOKEN.encode()}, {b"data": valid, b"token": TOKEN.encode()}],
    )
    letters = await doors.ports.letters.read()
    assert [(x.letter.reason["kind"], x.letter.reason["rule"]) for x in letters] == [
        ("rule", "correction.unknown_player")
    ]
    assert await doors.ports.log.version("g1") == 2
