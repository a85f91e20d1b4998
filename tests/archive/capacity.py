"""Measure what sealing saves: Redis memory per live game (the game's keys, `MEMORY USAGE`,
and `used_memory` before and after sealing) and archive bytes per game (the directory
archive's file, PostgreSQL's row), on the example games published through the service.

Run: `.venv/bin/python -m tests.archive.capacity` (a private redis-server, a temporary
directory archive, and a fresh database on the local PostgreSQL at 127.0.0.1:5432).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import psycopg

from tests.archive.conftest import example_logs, start_stack
from tests.postgres_fixture import LOCAL, fresh_database
from tests.redis_fixture import RedisServer, sync_client


async def measure(redis_url: str, archive_url: str) -> dict[str, dict[str, int]]:
    """Per example game: its events, its Redis keys' bytes, and the `used_memory` drop when
    it was sealed (the whole set of games sealed at once; split by event share)."""
    stack = await start_stack(redis_url, archive_url)
    app = stack.assembled.app
    client = sync_client(redis_url)
    out: dict[str, dict[str, int]] = {}
    async with app.router.lifespan_context(app), stack.http:
        games = example_logs()
        for game_id, lines in games.items():
            await stack.publish(game_id, lines)
            await stack.wait_final(game_id, len(lines))
        for game_id, lines in games.items():
            keys = stack.redis_keys_of(game_id)
            own = [k for k in keys if game_id in k]  # its own keys (the index entry is small)
            out[game_id] = {
                "events": len(lines),
                "redis_key_bytes": sum(int(client.memory_usage(k) or 0) for k in own),
            }
        before = int(client.info("memory")["used_memory"])
        assert await stack.seal() == {"sealed": len(games)}
        after = int(client.info("memory")["used_memory"])
        total_events = sum(v["events"] for v in out.values())
        for row in out.values():
            row["used_memory_freed"] = (before - after) * row["events"] // total_events
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp)).start()
        try:
            directory = Path(tmp) / "archive"
            rows = asyncio.run(measure(server.url, directory.as_uri()))
            for game_id, row in rows.items():
                row["directory_file_bytes"] = (directory / f"{game_id}.jsonl.gz").stat().st_size
            client = sync_client(server.url)
            client.flushdb()
            with fresh_database(LOCAL) as pg_url:
                asyncio.run(measure(server.url, pg_url))
                with psycopg.connect(pg_url) as conn:
                    for game_id, size in conn.execute(
                        "SELECT game_id, pg_column_size(archived_games.*) FROM archived_games"
                    ).fetchall():
                        rows[game_id]["postgres_row_bytes"] = int(size)
                    table = conn.execute(
                        "SELECT pg_total_relation_size('archived_games')"
                    ).fetchone()
                print(f"postgres table total (with indexes, TOAST): {table[0] if table else 0}")
        finally:
            server.stop()
    print("game | events | Redis keys (MEMORY USAGE) | used_memory freed | gzip file | PG row")
    for game_id, r in rows.items():
        print(
            f"{game_id} | {r['events']} | {r['redis_key_bytes']} "
            f"({r['redis_key_bytes'] // r['events']} B/event) | {r['used_memory_freed']} | "
            f"{r['directory_file_bytes']} ({r['directory_file_bytes'] // r['events']} B/event) | "
            f"{r.get('postgres_row_bytes')} "
            f"({r.get('postgres_row_bytes', 0) // r['events']} B/event)"
        )


if __name__ == "__main__":
    main()
