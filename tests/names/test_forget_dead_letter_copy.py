"""A start event refused at the inbox (here: the table creates its game again under a new event
id, and seq 1 is taken) is dead-lettered with its data as received, the players' names
included, and kept `dead_letter_keep_s` (30 days by default) for an operator to read why.
The inbox entry itself is deleted once lettered; forget replaces the name in the letter's raw
(`sl:deadletter`, and an integration's `{sl:deadletter}:inbox:<name>` copy), keeping the rest
of the letter (docs/forget.md), and says so in its report."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence

import pytest

from contracts.events import parse_event_json
from services.adapters.redis.connect import connect
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import memory_ports, redis_ports, use_cases
from services.cli.forget import forget_player
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import CommonSettings, ServiceSettings
from services.ports.deadletters import DeadLetter
from services.ports.inbox import GROUP
from services.usecases.inbox.settle import Inbox
from services.usecases.names import NamedEventLog
from tests.archive.test_forget import redis_values
from tests.names.helpers import GAME, NAME, PLAYER, holds_name, lines

TOKEN = "dead-letter-forget-test-token-chosen-by-the-table"
KEYS = Keys(4)


def _again() -> bytes:
    """The start event posted again under a new event id (refused: seq 1 is taken)."""
    again = json.loads(lines()[0])
    again["event_id"] = str(uuid.uuid4())
    return json.dumps(again, ensure_ascii=False).encode()


@pytest.mark.redis
@pytest.mark.parametrize("stream", ["shared", "integration"])
async def test_no_dead_letter_holds_a_forgotten_name(clean_redis_url: str, stream: str) -> None:
    client = connect(clean_redis_url)
    try:
        ports = redis_ports(client, KEYS)
        key = KEYS.inbox if stream == "shared" else KEYS.integration_inbox("table-7")
        queue = RedisInboxQueue(client, key, game_of_entry)
        cases = use_cases(ports, ServiceSettings(shards=4))
        inbox = Inbox(queue, KEYS, cases.record, ports.letters, form=INBOX_FORM)
        await inbox.ensure_group()
        for data in (*lines()[:2], _again()):
            await client.xadd(key, {"data": data, "token": TOKEN})
        [(_, entries)] = await client.xreadgroup(GROUP, "c1", {key: ">"}, count=10)
        await inbox.process([i for i, _ in entries], [f for _, f in entries], "c1", wait_s=0)
        assert len(await ports.log.read(GAME)) == 2
        (letter,) = await ports.letters.read()  # the second start: seq 1 is taken
        copy = KEYS.integration_dead_letters("table-7")
        assert await client.xlen(copy) == (stream == "integration")
        assert holds_name(letter.letter.raw)
        settings = CommonSettings(redis_url=clean_redis_url, shards=4)  # type: ignore[arg-type]
        report = await forget_player(settings, GAME, PLAYER)
        assert report.code == 0, report.lines
        assert report.lines[0] == (
            f"forgot {PLAYER} of game {GAME} in Redis and the dead letters kept: shown as player-2"
        )
        count = 1 if stream == "shared" else 2  # the letter, and the integration's copy
        assert f"the dead letters kept: {count} letters: the name replaced in the raw" in (
            report.lines
        )
        assert not [v for v in redis_values(clean_redis_url, only=key) if holds_name(v)]
        held = [v[:80] for v in redis_values(clean_redis_url) if holds_name(v)]
        # failed before forget scrubbed the letters: `raw` held the start event as posted
        assert held == [], f"{NAME!r} still in Redis after the forget: {held}"
        (after,) = await ports.letters.read()
        assert after.letter.raw == letter.letter.raw.replace(
            json.dumps(NAME, ensure_ascii=False).encode(), b'"player-2"'
        )
        assert (after.letter.reason, after.letter.source, after.time) == (
            letter.letter.reason,
            letter.letter.source,
            letter.time,
        )
        assert after.letter.context == {**letter.letter.context, "scrubbed_from": letter.letter_id}
        again = await forget_player(settings, GAME, PLAYER)
        assert again.lines[0].endswith("was forgotten already: shown as player-2")
    finally:
        await client.aclose()


async def test_the_memory_service_scrubs_the_game_s_letters() -> None:
    ports = memory_ports(4)
    cases = use_cases(ports, ServiceSettings(shards=4))
    assert ports.names is not None
    named = NamedEventLog(ports.log, ports.names)  # as the service's log: names kept apart
    await named.append(GAME, [parse_event_json(line) for line in lines()[:2]])
    reason = {"kind": "conflict", "rule": "log.expected_version"}
    await ports.letters.put_once(
        DeadLetter(_again(), reason, "inbox", {"inbox_id": "9-0"}), "k", 60
    )
    other = lines()[0].replace(GAME.encode(), b"other-game")  # not this game's: kept as is
    await ports.letters.put(DeadLetter(other, reason, "inbox", {"inbox_id": "8-0"}))
    assert cases.forget is not None
    done = await cases.forget.forget(GAME, PLAYER)
    assert ("letters", True) in [(c.tier, c.changed) for c in done.changes]
    assert "letters" in done.tiers
    raws = {s.letter.context["inbox_id"]: s.letter.raw for s in await ports.letters.read()}
    assert not holds_name(raws["9-0"])
    assert b'"player-2"' in raws["9-0"]
    assert raws["8-0"] == other


async def test_the_letters_are_scanned_with_the_game_s_tier_lock_let_go() -> None:
    # a seal or a restore waits for that lock (docs/forget.md): a scan of every letter must
    # not hold it
    ports = memory_ports(4)
    cases = use_cases(ports, ServiceSettings(shards=4))
    assert ports.names is not None
    await NamedEventLog(ports.log, ports.names).append(
        GAME, [parse_event_json(line) for line in lines()[:2]]
    )
    reason = {"kind": "conflict"}
    await ports.letters.put(DeadLetter(_again(), reason, "inbox", {"inbox_id": "9-0"}))
    scrub, free = ports.letters.scrub, []

    async def checking(game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        assert ports.hot_games is not None
        free.append(await ports.hot_games.lock(game_id, "a-seal", 1000))
        await ports.hot_games.unlock(game_id, "a-seal")
        return await scrub(game_id, replacements)

    ports.letters.scrub = checking  # type: ignore[method-assign]
    assert cases.forget is not None
    done = await cases.forget.forget(GAME, PLAYER)
    assert free == [True]
    assert "letters" in done.tiers
