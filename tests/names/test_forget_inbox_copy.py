"""A game created through the inbox (a Redis stream, docs/decisions/0006-inbox-consumer-group.md),
then a player forgotten: forget makes the name unreadable "in every tier" (docs/forget.md). An
inbox entry holding a start event (the names as posted) is deleted once settled, not kept for
`inbox_keep_s` (a day by default) after it, so no Redis value holds the name after the forget;
an entry of the game still pending at the forget is left to settle (deleting it would lose
it), and settled after it, brings no name back and is deleted too."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import redis_ports, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from services.usecases.inbox.settle import Inbox
from tests.archive.test_forget import redis_values
from tests.names.helpers import GAME, NAME, PLAYER, SEAT, holds_name, lines

pytestmark = pytest.mark.redis

TOKEN = "inbox-forget-test-token-chosen-by-the-table"
KEYS = Keys(4)


@pytest.fixture
async def via_inbox(clean_redis_url: str) -> AsyncIterator[object]:
    client = connect(clean_redis_url)
    ports = redis_ports(client, KEYS)
    cases = use_cases(ports, ServiceSettings(shards=4))
    queue = RedisInboxQueue(client, KEYS.inbox, game_of_entry)
    inbox = Inbox(queue, KEYS, cases.record, ports.letters, form=INBOX_FORM)
    await inbox.ensure_group()
    for line in lines()[:3]:
        await client.xadd(KEYS.inbox, {"data": line, "token": TOKEN})
    read = await client.xreadgroup(GROUP, "c1", {KEYS.inbox: ">"}, count=10)
    [(_, entries)] = read
    await inbox.process([i for i, _ in entries], [f for _, f in entries], "c1", wait_s=0)
    assert len(await ports.log.read(GAME)) == 3  # recorded through the inbox
    assert not await ports.letters.read()
    yield cases, clean_redis_url
    await client.aclose()


async def test_no_redis_value_holds_a_forgotten_name_of_a_game_written_through_the_inbox(
    via_inbox: object,
) -> None:
    cases, url = via_inbox  # type: ignore[misc]
    assert cases.forget is not None
    await cases.forget.forget(GAME, PLAYER)
    held = [v[:80] for v in redis_values(url) if holds_name(v)]
    in_inbox = [v[:80] for v in redis_values(url, only=KEYS.inbox) if holds_name(v)]
    assert in_inbox == held  # what held it before was the settled inbox entry
    # failed before: the settled inbox entry (sl:inbox) still held the start event as posted
    assert held == [], f"{NAME!r} still in Redis after the forget: {held}"


async def test_an_entry_pending_at_the_forget_settles_after_it_without_the_name(
    via_inbox: object,
) -> None:
    """The table sends its start entry again (no reply channel: a retry) and the next event;
    both are read but not settled when the operator forgets. Forget leaves them pending (the
    name is in Redis until they settle); settled after it, the start is a duplicate that
    keeps the name forgotten, the next event is recorded, and the start's entry is deleted."""
    cases, url = via_inbox  # type: ignore[misc]
    client = connect(url)
    queue = RedisInboxQueue(client, KEYS.inbox, game_of_entry)
    ports = redis_ports(client, KEYS)
    inbox = Inbox(queue, KEYS, cases.record, ports.letters, form=INBOX_FORM)
    try:
        for line in (lines()[0], lines()[3]):
            await client.xadd(KEYS.inbox, {"data": line, "token": TOKEN})
        [(_, entries)] = await client.xreadgroup(GROUP, "c2", {KEYS.inbox: ">"}, count=10)
        await cases.forget.forget(GAME, PLAYER)
        pending = [v for v in redis_values(url, only=KEYS.inbox) if holds_name(v)]
        assert len(pending) == 1  # the retried start, pending with c2: left as it is
        await inbox.process([i for i, _ in entries], [f for _, f in entries], "c2", wait_s=0)
        assert len(await ports.log.read(GAME)) == 4  # the duplicate changed nothing
        [first] = await cases.reads.log.read(GAME, 1, 1)
        shown = {p.player_id: p.name for p in first.payload.players}  # type: ignore[attr-defined]
        assert shown[PLAYER] == f"player-{SEAT}"
        assert not await ports.letters.read()
        assert (await client.xpending(KEYS.inbox, GROUP))["pending"] == 0
        held = [v[:80] for v in redis_values(url) if holds_name(v)]
        assert held == [], f"{NAME!r} in Redis after the pending entries settled: {held}"
    finally:
        await client.aclose()
