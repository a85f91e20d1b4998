"""An inbox entry that may name a player (a `*.game_started` event, `FieldsForm.may_name`) is
deleted once settled; the others are kept for the inbox retention as before (docs/forget.md,
"Where a name rests"; docs/operating/security.md, what is kept how long).

Against a real Redis, a single node or a cluster (`SCORELEDGER_TEST_REDIS=cluster`): the
delete is one XDEL on the entry's own stream. What kept entries serve still holds: a lost group
re-created at `0` reads the kept entries again, each a duplicate that changes nothing; a refused
entry is dead-lettered once (the letter keeps its data) even when read again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import Ports, redis_ports, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from services.usecases.inbox.settle import Inbox
from tests.names.helpers import GAME, lines

pytestmark = pytest.mark.redis
KEYS = Keys(4)
TOKEN = "inbox-named-entries-token-chosen-by-the-table"


@dataclass
class Door:
    client: RedisClient
    ports: Ports
    inbox: Inbox

    async def send(self, *data: bytes) -> list[bytes]:
        return [await self.client.xadd(KEYS.inbox, {"data": d, "token": TOKEN}) for d in data]

    async def settle(self, consumer: str = "c1") -> list[bytes]:
        """Read every new entry as `consumer` and settle it; the ids read."""
        read = await self.client.xreadgroup(GROUP, consumer, {KEYS.inbox: ">"}, count=100)
        entries = [e for _, stream in read or [] for e in stream]
        ids = [i for i, _ in entries]
        await self.inbox.process(ids, [f for _, f in entries], consumer, wait_s=0)
        return ids

    async def kept(self) -> list[bytes]:
        return [i for i, _ in await self.client.xrange(KEYS.inbox)]

    async def pending(self) -> int:
        return int((await self.client.xpending(KEYS.inbox, GROUP))["pending"])


@pytest.fixture
async def door(clean_redis_url: str) -> AsyncIterator[Door]:
    client = connect(clean_redis_url)
    ports = redis_ports(client, KEYS)
    record = use_cases(ports, ServiceSettings(shards=4)).record
    queue = RedisInboxQueue(client, KEYS.inbox, game_of_entry)
    inbox = Inbox(queue, KEYS, record, ports.letters, form=INBOX_FORM)
    await inbox.ensure_group()
    yield Door(client, ports, inbox)
    await client.aclose()


def restarted(line: bytes) -> bytes:
    """The start event again under a new event id: refused (seq 1 is taken)."""
    event = json.loads(line)
    event["event_id"] = str(uuid.uuid4())
    return json.dumps(event, ensure_ascii=False).encode()


async def test_a_settled_start_entry_is_deleted_and_the_others_are_kept(door: Door) -> None:
    start, turn, gained = await door.send(*lines()[:3])
    assert await door.settle() == [start, turn, gained]
    assert len(await door.ports.log.read(GAME)) == 3
    # fails before: the start entry was kept (with the names as posted) for inbox_keep_s
    assert await door.kept() == [turn, gained]
    assert await door.pending() == 0


async def test_a_refused_start_entry_is_lettered_once_then_deleted(door: Door) -> None:
    _, turn = await door.send(*lines()[:2])
    await door.settle()
    (again,) = await door.send(restarted(lines()[0]))
    await door.settle()
    (stored,) = await door.ports.letters.read()
    assert stored.letter.context == {"inbox_id": again.decode()}
    assert json.loads(stored.letter.raw)["payload"] == json.loads(lines()[0])["payload"]
    assert await door.kept() == [turn]  # fails before: the refused start entry was kept
    assert await door.pending() == 0


async def test_a_lost_group_reads_the_kept_entries_again_and_changes_nothing(door: Door) -> None:
    """What a kept entry serves: read again after its group is lost (re-created at 0), it is
    a duplicate; a refused one is not lettered twice; a deleted one is simply not read."""
    start, turn, gained = await door.send(*lines()[:3])
    refused, late = await door.send(restarted(lines()[0]), b'{"event_id": ')
    await door.settle()
    stored = [e.event_id for e in await door.ports.log.read(GAME)]
    assert len(await door.ports.letters.read()) == 2
    assert await door.kept() == [turn, gained, late]
    await door.client.xgroup_destroy(KEYS.inbox, GROUP)
    await door.inbox.ensure_group()  # as the stream guard does: at 0
    assert await door.settle("c2") == [turn, gained, late]
    assert [e.event_id for e in await door.ports.log.read(GAME)] == stored
    assert len(await door.ports.letters.read()) == 2  # lettered once per entry id
    assert await door.kept() == [turn, gained, late]
    assert await door.pending() == 0
    assert {start, refused}.isdisjoint(await door.kept())


async def test_an_entry_left_pending_is_not_deleted(door: Door) -> None:
    """An entry that waits for an older one of its game is not settled: it stays pending,
    fields and all (deleting it would lose it), and is deleted once settled."""
    await door.send(lines()[0])
    await door.settle()
    first, second = await door.send(restarted(lines()[0]), restarted(lines()[0]))
    read = await door.client.xreadgroup(GROUP, "c1", {KEYS.inbox: ">"}, count=1)
    assert [i for i, _ in read[0][1]] == [first]  # c1 holds it, not settled yet
    assert await door.settle("c2") == [second]  # refused behind `first`: waits
    assert await door.kept() == [first, second]
    assert await door.pending() == 2
    await door.inbox.process([first], [read[0][1][0][1]], "c1", wait_s=0)
    assert await door.kept() == [second]
    [(_, fields)] = await door.client.xrange(KEYS.inbox)
    await door.inbox.process([second], [fields], "c2", wait_s=0)
    assert await door.kept() == []
    assert await door.pending() == 0
    assert len(await door.ports.letters.read()) == 2
