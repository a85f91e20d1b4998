"""`DeadLetters.scrub` (a forget's step, docs/forget.md): the name's JSON string literal
replaced in the raw of the game's letters, everything else of the letter kept, for every
backend; on Redis also an integration's copy, paging, and retention by the first id."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from services.adapters.redis import deadletter_scrub
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.keys import Keys
from services.ports.deadletters import DeadLetter, literals, scrubbed
from tests.ports.conftest import SHARDS, Backend

GAME = "g-dl"
NAME = "Alma Nováková"
PAIRS = [(json.dumps(NAME), '"player-2"'), (json.dumps(NAME, ensure_ascii=False), '"player-2"')]
START = json.dumps(
    {
        "game_id": GAME,
        "type": "penumbra.game_started",
        "payload": {
            "players": [{"player_id": "oren", "name": NAME}, {"player_id": "mira", "name": "Mira"}]
        },
    },
    ensure_ascii=False,
).encode()
REASON = {"kind": "conflict", "rule": "log.expected_version", "status": 409}


def _letter(raw: bytes, **context: str) -> DeadLetter:
    return DeadLetter(raw, REASON, "inbox", {"inbox_id": "5-0", **context})


def test_a_letter_of_another_game_or_without_the_name_is_not_scrubbed() -> None:
    other = START.replace(GAME.encode(), b"g-other")
    assert scrubbed(_letter(other), GAME, PAIRS) is None
    assert scrubbed(_letter(b'{"game_id":"g-dl","note":"Alma"}'), GAME, PAIRS) is None
    # the game named by the context (a projector letter), the raw not JSON at all
    cut = f'xx "{NAME}" [[ no json'.encode()
    assert scrubbed(_letter(cut, game=GAME), GAME, PAIRS) == b'xx "player-2" [[ no json'
    assert scrubbed(_letter(cut), GAME, PAIRS) is None  # nothing says it is the game's
    escaped = json.dumps({"game_id": GAME, "name": NAME}).encode()  # `\u00e1` escapes
    assert (
        scrubbed(_letter(escaped), GAME, PAIRS)
        == json.dumps({"game_id": GAME, "name": "player-2"}).encode()
    )
    assert literals("é") == (b'"\\u00e9"', '"é"'.encode())


async def test_scrub_replaces_the_name_in_the_game_s_letters_and_keeps_the_rest(
    backend: Backend,
) -> None:
    letters = backend.letters
    other = await letters.put(_letter(START.replace(GAME.encode(), b"g-other"), inbox_id="6-0"))
    first = await letters.put(_letter(START))
    broken = START[:-30] + b"\xff"  # not JSON any more: the literal is still replaced
    await letters.put(_letter(broken, inbox_id="7-0"))
    before = {s.letter.context["inbox_id"]: s for s in await letters.read()}

    assert await letters.scrub(GAME, PAIRS) == 2
    after = await letters.read()
    assert [s.letter.context["inbox_id"] for s in after] == ["6-0", "5-0", "7-0"]
    assert (after[0].letter_id, after[0].letter.raw) == (other, before["6-0"].letter.raw)
    moved = after[1]
    assert moved.letter_id != first  # stored again, at the end of the read order
    assert moved.letter.raw == START.replace(f'"{NAME}"'.encode(), b'"player-2"')
    assert b'"Mira"' in moved.letter.raw
    assert (moved.letter.reason, moved.letter.source) == (REASON, "inbox")
    assert moved.time == before["5-0"].time
    assert moved.letter.context == {"inbox_id": "5-0", "scrubbed_from": first}
    assert after[2].letter.raw == broken.replace(f'"{NAME}"'.encode(), b'"player-2"')
    assert not [s for s in after if NAME.encode() in s.letter.raw and s.letter_id != other]

    assert await letters.scrub(GAME, PAIRS) == 0  # nothing left to replace
    again = [(json.dumps("Mira"), '"player-1"')]
    assert await letters.scrub(GAME, again) == 1  # the broken raw was cut before "Mira"
    final = await letters.read()
    assert [s.letter.context["inbox_id"] for s in final] == ["6-0", "7-0", "5-0"]
    assert b'"player-1"' in final[-1].letter.raw
    assert final[-1].letter.context["scrubbed_from"] == first  # the first id is kept


async def test_a_scrubbed_letter_is_trimmed_by_the_time_it_was_first_stored(
    backend: Backend,
) -> None:
    await backend.letters.put(_letter(START))
    await asyncio.sleep(0.01)
    assert await backend.letters.scrub(GAME, PAIRS) == 1
    now_ms = int(time.time() * 1000)
    assert await backend.letters.trim(3600, now_ms) == 0
    # a keep that the letter's first time has passed, though its new id is younger
    (stored,) = await backend.letters.read()
    first_ms = int(stored.letter.context["scrubbed_from"].split("-")[0])
    if backend.name == "memory":  # its ids are counters: trim by the time kept
        assert await backend.letters.trim(0.005, now_ms) == 1
    else:
        moved_ms = int(stored.letter_id.split("-")[0])
        assert first_ms < moved_ms
        assert await backend.letters.trim((now_ms - moved_ms + 0.5) / 1000, now_ms) == 1
    assert await backend.letters.read() == []


@pytest.mark.redis
async def test_on_redis_an_integration_s_copy_is_scrubbed_and_trimmed_too(
    redis_client: RedisClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deadletter_scrub, "PAGE", 2)  # several pages per stream
    keys, client = Keys(SHARDS), redis_client
    letters = RedisDeadLetters(client, keys)
    copy = keys.integration_dead_letters("table-7")
    context = {"inbox": keys.integration_inbox("table-7")}
    for n in range(5):
        raw = START if n in (1, 4) else START.replace(GAME.encode(), b"g-other")
        await letters.put_once(_letter(raw, inbox_id=f"{n}-0", **context), f"k{n}", 60)
    assert await letters.scrub(GAME, PAIRS) == 4  # two letters, two copies
    for stream in (keys.dead_letter, copy):
        entries = await client.xrange(stream)
        assert [e[1][b"inbox_id"] for e in entries] == [b"0-0", b"2-0", b"3-0", b"1-0", b"4-0"]
        held = [e for e in entries if NAME.encode() in e[1][b"raw"]]
        assert [e[1][b"inbox_id"] for e in held] == [b"0-0", b"2-0", b"3-0"]  # g-other's
        assert all(b"scrubbed_from" in e[1] for e in entries[3:])
    assert await client.zcard(keys.dead_letter_scrubbed) == 4
    assert await letters.trim(0.001, int(time.time() * 1000) + 1000) == 7
    assert await client.xlen(keys.dead_letter) == 0
    assert await client.xlen(copy) == 3  # the copy's others wait for its next letter (MINID)
    assert [e[1][b"inbox_id"] for e in await client.xrange(copy)] == [b"0-0", b"2-0", b"3-0"]
    assert await client.zcard(keys.dead_letter_scrubbed) == 0
