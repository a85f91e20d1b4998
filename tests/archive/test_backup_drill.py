"""The backup drill: copy Redis's data (an RDB snapshot), then the directory archive, start a
new Redis and a new service from the copies, and every game answers as before: the games still
in Redis and the games already sealed into the archive. Redis is copied first: a game sealed
between the two copies is then in the archive's copy (it is put there before it leaves Redis);
the other order could miss it in both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.archive.conftest import example_logs, start_stack
from tests.archive.reads import list_routes, read_routes
from tests.redis_fixture import RedisServer, sync_client

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def live_game(lines: list[bytes], game_id: str, count: int) -> list[bytes]:
    """The first `count` events of an example game under another id (a game still playing)."""
    out = []
    for line in lines[:count]:
        event = json.loads(line)
        event["game_id"] = game_id
        out.append(json.dumps(event).encode())
    return out


async def test_a_copy_of_redis_then_the_archive_restores_every_game(tmp_path: Path) -> None:
    games = example_logs()
    playing = live_game(next(iter(games.values())), "still-playing", 30)
    (tmp_path / "redis").mkdir()
    old = RedisServer(tmp_path / "redis", appendonly=True).start()
    new: RedisServer | None = None
    try:
        stack = await start_stack(old.url, (tmp_path / "archive").as_uri())
        app = stack.assembled.app
        async with app.router.lifespan_context(app), stack.http:
            for game_id, lines in games.items():
                await stack.publish(game_id, lines)
                await stack.wait_final(game_id, len(lines))
            assert await stack.seal() == {"sealed": len(games)}
            await stack.publish("still-playing", playing)
            await stack.wait_final("still-playing", len(playing))
            before = {g: await read_routes(stack.http, g) for g in [*games, "still-playing"]}
            lists = await list_routes(stack.http)
            # the drill: Redis first (SAVE writes dump.rdb), then the archive
            sync_client(old.url).save()
            (tmp_path / "restored").mkdir()
            shutil.copy(tmp_path / "redis" / "dump.rdb", tmp_path / "restored" / "dump.rdb")
            shutil.copytree(tmp_path / "archive", tmp_path / "archive-copy")
        old.stop()

        new = RedisServer(tmp_path / "restored").start()  # loads dump.rdb
        restored = await start_stack(new.url, (tmp_path / "archive-copy").as_uri())
        app = restored.assembled.app
        async with app.router.lifespan_context(app), restored.http:
            assert restored.redis_keys_of("still-playing") != []
            for game_id in games:
                assert restored.redis_keys_of(game_id) == []  # answered from the archive copy
            for game_id, answers in before.items():
                assert await read_routes(restored.http, game_id) == answers, game_id
            assert await list_routes(restored.http) == lists
    finally:
        old.stop()
        if new is not None:
            new.stop()
