"""The backup drill: copy Redis's data (an RDB snapshot), then the archive (the directory with a
copy; PostgreSQL with `pg_dump --format=custom`, restored with `pg_restore` into a new, empty
database), start a new Redis and a new service from the copies, and every game answers as
before: the games still in Redis and the games already sealed into the archive. Redis is copied
first: a game sealed between the two copies is then in the archive's copy (it is put there before
it leaves Redis); the other order could miss it in both."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.archive.conftest import example_logs, start_stack
from tests.archive.reads import list_routes, read_routes
from tests.postgres_fixture import _binary, _with_db, fresh_database
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


def copy_archive(url: str, to: Path) -> None:
    """The archive's backup: a directory copied as is; PostgreSQL dumped by `pg_dump` (custom
    format: compressed, restorable table by table)."""
    if url.startswith("file:"):
        shutil.copytree(Path(url.removeprefix("file://")), to)
        return
    pg_dump = _binary("pg_dump") or "pg_dump"
    subprocess.run(
        [pg_dump, "--format=custom", "--no-owner", "--file", str(to), url],
        check=True,
        capture_output=True,
        timeout=120,
    )


@contextlib.contextmanager
def restored_archive(url: str, copy: Path) -> Iterator[str]:
    """The URL of an archive restored from `copy`: the directory, or a new database on the same
    PostgreSQL server that `pg_restore` filled (dropped after)."""
    if url.startswith("file:"):
        yield copy.as_uri()
        return
    with fresh_database(_with_db(url, "postgres")) as target:
        pg_restore = _binary("pg_restore") or "pg_restore"
        subprocess.run(
            [pg_restore, "--no-owner", "--exit-on-error", "--dbname", target, str(copy)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        yield target


@pytest.fixture(params=["directory", pytest.param("postgres", marks=pytest.mark.postgres)])
def archive(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "directory":
        return (tmp_path / "archive").as_uri()
    return str(request.getfixturevalue("postgres_url"))


async def test_a_copy_of_redis_then_the_archive_restores_every_game(
    tmp_path: Path, archive: str
) -> None:
    games = example_logs()
    playing = live_game(next(iter(games.values())), "still-playing", 30)
    (tmp_path / "redis").mkdir()
    old = RedisServer(tmp_path / "redis", appendonly=True).start()
    new: RedisServer | None = None
    try:
        stack = await start_stack(old.url, archive)
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
            copy_archive(archive, tmp_path / "archive-copy")
        old.stop()

        new = RedisServer(tmp_path / "restored").start()  # loads dump.rdb
        with restored_archive(archive, tmp_path / "archive-copy") as copy_url:
            assert copy_url != archive
            await check_restored(new.url, copy_url, games, before, lists)
    finally:
        old.stop()
        if new is not None:
            new.stop()


async def check_restored(
    redis_url: str,
    archive_url: str,
    games: dict[str, list[bytes]],
    before: dict[str, object],
    lists: object,
) -> None:
    """A service on the copies answers every read route as `before`."""
    restored = await start_stack(redis_url, archive_url)
    app = restored.assembled.app
    async with app.router.lifespan_context(app), restored.http:
        assert restored.redis_keys_of("still-playing") != []
        for game_id in games:
            assert restored.redis_keys_of(game_id) == []  # answered from the archive copy
        for game_id, answers in before.items():
            assert await read_routes(restored.http, game_id) == answers, game_id
        assert await list_routes(restored.http) == lists
