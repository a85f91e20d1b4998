"""An inbox start event posted as UTF-16 or UTF-32 JSON is recorded (`json.loads` reads
UTF-16/32 bytes). Before `FieldsForm.may_name` read the body's encoding, it looked for the
ASCII bytes `game_started`, so it kept the settled entry, with the player's name, for the
inbox retention, where forget cannot reach it (docs/forget.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import redis_ports, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from services.usecases.inbox.settle import Inbox
from tests.names.helpers import GAME, NAME, PLAYER, lines

pytestmark = pytest.mark.redis

TOKEN = "inbox-forget-test-token-chosen-by-the-table"
KEYS = Keys(4)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
async def test_a_settled_utf16_start_entry_holding_a_name_is_deleted(
    clean_redis_url: str, encoding: str
) -> None:
    """A start event posted in UTF-16/32 is recorded yet its settled entry keeps the name."""
    client = connect(clean_redis_url)
    try:
        ports = redis_ports(client, KEYS)
        cases = use_cases(ports, ServiceSettings(shards=4))
        queue = RedisInboxQueue(client, KEYS.inbox, game_of_entry)
        inbox = Inbox(queue, KEYS, cases.record, ports.letters, form=INBOX_FORM)
        await inbox.ensure_group()
        data = lines()[0].decode().encode(encoding)
        await client.xadd(KEYS.inbox, {"data": data, "token": TOKEN})
        read: Any = await client.xreadgroup(GROUP, "c1", {KEYS.inbox: ">"}, count=10)
        [(_, entries)] = read
        await inbox.process([i for i, _ in entries], [f for _, f in entries], "c1", wait_s=0)
        assert len(await ports.log.read(GAME)) == 1  # recorded: the start was read
        pending: Any = await client.xpending(KEYS.inbox, GROUP)
        assert pending["pending"] == 0  # settled
        stream: Any = await client.xrange(KEYS.inbox)
        kept = [json.loads(f[b"data"]) for _, f in stream]
        named = [
            p["name"] for e in kept for p in e["payload"]["players"] if p["player_id"] == PLAYER
        ]
        assert named == [], f"settled inbox entry still holds {named} (expected {NAME!r} gone)"
    finally:
        await client.aclose()
