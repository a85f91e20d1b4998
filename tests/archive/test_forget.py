"""`scoreledger forget` on Redis with an archive (a directory, or PostgreSQL), the whole
service over HTTP: a forgotten player's name is in no answer, no Redis key or value, and no
archived byte (the files decompressed, the rows), before and after sealing, while every
score and rank stays the example's."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from services.cli.forget import forget_player
from services.platform.settings import CommonSettings
from tests.archive.conftest import TOKEN, Stack, start_stack
from tests.archive.reads import read_routes
from tests.names.helpers import EXPECTED, GAME, holds_name, lines, ranks_and_totals
from tests.redis_fixture import every_key, sync_client

pytestmark = pytest.mark.redis


@pytest.fixture
async def named(clean_redis_url: str, archive_url: str) -> AsyncIterator[Stack]:
    """The service with the example game published, Oren named "Alma Nováková", final."""
    built = await start_stack(clean_redis_url, archive_url)
    app = built.assembled.app
    async with app.router.lifespan_context(app), built.http:
        body = b"[" + b",".join(lines()) + b"]"
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        posted = await built.http.post(f"/games/{GAME}/events", content=body, headers=headers)
        assert posted.status_code == 201, posted.text
        await built.wait_final(GAME, len(lines()))
        yield built


def redis_values(url: str, only: str | None = None) -> list[bytes]:
    """Every key name and every value Redis holds, read by its type (`only`: of the keys
    whose name holds it). A key that expires between the scan and its read (a projector's
    lease) counts by its name alone."""
    client = sync_client(url)
    out: list[bytes] = []
    for key in every_key(client):
        if only is not None and only not in (key.decode() if isinstance(key, bytes) else key):
            continue
        out.append(key)
        kind = client.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "string":
            out.append(client.get(key))
        elif kind == "hash":
            out += [b for pair in client.hgetall(key).items() for b in pair]
        elif kind == "list":
            out += client.lrange(key, 0, -1)
        elif kind == "set":
            out += list(client.smembers(key))
        elif kind == "zset":
            out += client.zrange(key, 0, -1)
        elif kind == "stream":
            out += [v for _, fields in client.xrange(key) for v in fields.values()]
        elif kind == "none":  # expired between the scan and TYPE (a lease's TTL): holds nothing
            continue
        else:
            raise AssertionError(f"a key of type {kind}: {key!r}")
    return [v if isinstance(v, bytes) else str(v).encode() for v in out]


def archived_bytes(archive_url: str) -> list[bytes]:
    """Every byte the archive holds: the directory's files decompressed, or every row."""
    if archive_url.startswith("file://"):
        root = Path(urlsplit(archive_url).path)
        return [gzip.decompress(p.read_bytes()) for p in sorted(root.glob("*.gz"))]
    with psycopg.connect(archive_url) as conn:
        rows: list[Any] = conn.execute(
            "SELECT row_to_json(a)::text, convert_from(a.events, 'UTF8'),"
            " convert_from(coalesce(a.projection_view, ''), 'UTF8') FROM archived_games a"
        ).fetchall()
    return [str(cell).encode() for row in rows for cell in row]


async def _forget(stack: Stack, archive_url: str, player: str = "oren") -> Any:
    settings = CommonSettings(redis_url=stack.redis_url, archive_url=archive_url)  # type: ignore[arg-type]
    return await forget_player(settings, GAME, player)


def _leaks(routes: dict[str, tuple[int, bytes]]) -> list[str]:
    return [path for path, (_, body) in routes.items() if holds_name(body)]


async def _standings(stack: Stack) -> dict[str, Any]:
    answer = await stack.http.get(f"/games/{GAME}/standings")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_forgotten_before_sealing_the_name_is_nowhere_in_redis_answers_or_archive(
    named: Stack, archive_url: str
) -> None:
    assert _leaks(await read_routes(named.http, GAME))  # the check can fail
    assert [v for v in redis_values(named.redis_url) if holds_name(v)]  # names HASH, projection
    report = await _forget(named, archive_url)
    assert report.code == 0
    assert report.lines[0] == "forgot oren of game pen-demo-3p in Redis: shown as player-2"
    assert [v for v in redis_values(named.redis_url) if holds_name(v)] == []
    assert _leaks(await read_routes(named.http, GAME)) == []
    assert ranks_and_totals(await _standings(named)) == EXPECTED
    assert (await named.seal())["sealed"] == 1
    assert named.redis_keys_of(GAME) == []
    assert [v for v in archived_bytes(archive_url) if holds_name(v)] == []
    assert _leaks(await read_routes(named.http, GAME)) == []
    assert ranks_and_totals(await _standings(named)) == EXPECTED
    again = await _forget(named, archive_url)
    assert (again.code, again.lines) == (
        0,
        ("oren of game pen-demo-3p was forgotten already: shown as player-2",),
    )


async def test_forgotten_after_sealing_the_archived_copy_changes(
    named: Stack, archive_url: str
) -> None:
    before = await read_routes(named.http, GAME)
    assert (await named.seal())["sealed"] == 1
    assert await read_routes(named.http, GAME) == before  # names read back from the archive
    assert [v for v in archived_bytes(archive_url) if holds_name(v)]  # the names, kept apart
    report = await _forget(named, archive_url)
    assert report.lines[0] == "forgot oren of game pen-demo-3p in the archive: shown as player-2"
    assert [v for v in archived_bytes(archive_url) if holds_name(v)] == []
    assert [v for v in redis_values(named.redis_url) if holds_name(v)] == []
    assert _leaks(await read_routes(named.http, GAME)) == []
    standings = await _standings(named)
    assert ranks_and_totals(standings) == EXPECTED
    names = {p["player_id"]: p["name"] for p in standings["players"]}
    assert names == {"mira": "Mira", "oren": "player-2", "tess": "Tess"}


async def test_an_unknown_game_or_player_is_refused(named: Stack, archive_url: str) -> None:
    settings = CommonSettings(redis_url=named.redis_url, archive_url=archive_url)  # type: ignore[arg-type]
    unknown = await forget_player(settings, "no-such-game", "oren")
    assert (unknown.code, unknown.lines) == (
        1,
        ("game 'no-such-game': no event in Redis or the archive",),
    )
    no_archive = CommonSettings(redis_url=named.redis_url, archive_url=None)  # type: ignore[arg-type]
    alone = await forget_player(no_archive, "no-such-game", "oren")
    assert alone.lines == ("game 'no-such-game': no event in Redis",)  # no archive to name
    nobody = await _forget(named, archive_url, "zed")
    assert (nobody.code, nobody.lines) == (
        1,
        ("game 'pen-demo-3p' seats no player 'zed' (players: mira, oren, tess)",),
    )


async def test_a_log_written_with_names_inline_is_stored_again_without_them(
    named: Stack, archive_url: str
) -> None:
    # Appended by the Redis adapter itself, as before names left the log: the name is in the
    # stream. Forget stores the start event again (one Lua call: the stream copied and renamed)
    # with every entry id and every later event as it was.
    from contracts.events import parse_event_json

    game = "inline-1"
    events = [parse_event_json(line.replace(GAME.encode(), game.encode())) for line in lines()]
    ports = named.assembled.service.ports
    await ports.log.append(game, events)
    # Projected first: this test is about the stored log; forget racing a projector that is
    # still folding the same game is tests/names' and tests/adversarial's.
    await named.wait_final(game, len(events))
    client = sync_client(named.redis_url)
    stream = named.keys.game_stream(game)
    before = client.xrange(stream)
    assert holds_name(before[0][1][b"data"])
    settings = CommonSettings(redis_url=named.redis_url, archive_url=archive_url)  # type: ignore[arg-type]
    report = await forget_player(settings, game, "oren")
    assert report.lines[0] == f"forgot oren of game {game} in Redis: shown as player-2"
    after = client.xrange(stream)
    assert [entry_id for entry_id, _ in after] == [entry_id for entry_id, _ in before]
    assert after[1:] == before[1:]
    assert not holds_name(after[0][1][b"data"])
    assert after[0][1][b"id"] == before[0][1][b"id"]
    # Its stream, names, event ids and projection (the shard feed still holds the event as
    # appended until it is trimmed, docs/operating/archive.md; the fixture's own game names Oren too).
    held = redis_values(named.redis_url, game)
    assert any(k.startswith(b"sl:names:") for k in held)
    assert [v for v in held if holds_name(v)] == []
    exported = await named.http.get(f"/games/{game}/export/events.jsonl")
    assert exported.status_code == 200, exported.text
    assert not holds_name(exported.content)
    assert b'"player_id":"mira","name":"Mira"' in exported.content
    assert (await ports.log.version(game)) == len(events)
