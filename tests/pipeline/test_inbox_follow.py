"""The inbox's follow-up (`Inbox(follow=...)`, tournament tables following their games): after
a round is settled, each recorded entry's game id and data are passed on, in entry order;
refused and unreadable entries are not (ports in memory)."""

from __future__ import annotations

import json

from services.adapters.memory.inbox import MemoryInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import memory_ports, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.usecases.inbox.settle import Inbox
from tests.pipeline.factory import corrected, started

TOKEN = b"follow-test-token-chosen-by-the-table-0001"


async def test_only_recorded_entries_are_followed_in_order() -> None:
    ports = memory_ports(4)
    followed: list[tuple[str, bytes | None]] = []

    async def follow(game_id: str, data: bytes | None) -> None:
        followed.append((game_id, data))

    cases = use_cases(ports, ServiceSettings(shards=4))
    queue = MemoryInboxQueue("sl:inbox", game_of_entry)
    inbox = Inbox(queue, Keys(4), cases.record, ports.letters, follow=follow, form=INBOX_FORM)
    first = json.dumps(started("f1").to_wire()).encode()
    refused = json.dumps(corrected("f2", 1, "nobody", 1).to_wire()).encode()  # no game yet
    second = json.dumps(started("f3").to_wire()).encode()
    entries = [
        {b"data": first, b"token": TOKEN},
        {b"data": refused, b"token": TOKEN},
        {b"data": b'{"event_id": ', b"token": TOKEN},  # not JSON: no game to follow
        {b"data": second, b"token": TOKEN},
    ]
    await inbox.process([b"1-1", b"2-1", b"3-1", b"4-1"], entries)
    assert followed == [("f1", first), ("f3", second)]
    assert len(await ports.letters.read()) == 2
    assert (await ports.log.version("f1"), await ports.log.version("f2")) == (1, 0)
