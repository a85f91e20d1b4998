"""`Archive` on PostgreSQL (psycopg 3, async, pooled): the production archive,
`SCORELEDGER_ARCHIVE_URL=postgresql://...`.

One row per game in `archived_games` (schema: `migrations.py`, applied by `open`). A put is
one `INSERT ... ON CONFLICT DO UPDATE` (atomic: a reader sees the old row or the new one); a
get verifies the checksum. Connections come from a bounded pool (`max_size`), each query with
a statement timeout, so a slow database makes callers wait, not pile up.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, ParamSpec, TypeVar

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from services.archive.adapters.postgres_migrations import migrate
from services.archive.ports.cold import (
    ArchiveCorrupt,
    ArchivedProjection,
    ArchiveEntry,
    ArchivePage,
    ArchiveRefused,
    ArchiveUnavailable,
    SealedGame,
    check_sealable,
    events_jsonl,
)

P = ParamSpec("P")
T = TypeVar("T")


def _unavailable(
    method: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """`method` with PostgreSQL's connection faults (unreachable, a dropped connection, no
    pooled connection within the timeout) raised as `ArchiveUnavailable`."""

    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except psycopg.OperationalError as error:  # PoolTimeout is one too
            raise ArchiveUnavailable(f"PostgreSQL archive: {str(error)[:200]}") from error

    return guarded


async def _reachable(url: str, timeout_s: float) -> None:
    """One direct connection before the pool (whose timeout hides why it got none): a server
    that answers and refuses (`FATAL:`, e.g. a wrong password or an unknown role) raises
    ArchiveRefused at once, an unreachable one ArchiveUnavailable."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=max(1, int(timeout_s)))
    except psycopg.OperationalError as error:
        said = "PostgreSQL archive: " + " ".join(str(error).split())[:200]  # one line
        if "FATAL:" in str(error):  # libpq's words for the server's refusal
            raise ArchiveRefused(said) from error
        raise ArchiveUnavailable(said) from error
    await conn.close()


_ENTRY = "game_id, ruleset, players, ended_at, event_count, checksum, archived_at, updated_at"


def _entry(row: dict[str, Any]) -> ArchiveEntry:
    return ArchiveEntry(
        game_id=row["game_id"],
        ruleset=row["ruleset"],
        players=tuple(row["players"]),
        ended_at=row["ended_at"],
        event_count=int(row["event_count"]),
        checksum=row["checksum"],
        archived_at=row["archived_at"],
        updated_at=row["updated_at"],
    )


class PostgresArchive:
    """`ports.cold.Archive` on PostgreSQL; build it with `await PostgresArchive.open(url)`."""

    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self.pool = pool

    @classmethod
    async def open(cls, url: str, max_size: int = 4, timeout_s: float = 10.0) -> PostgresArchive:
        """A pool on `url` (at most `max_size` connections, `timeout_s` to get one and per
        statement), the schema migrated first.

        Raises: ArchiveRefused (the server refused the connection: credentials, role,
            database); ArchiveUnavailable (unreachable or no connection in time); other
            psycopg errors (a failed migration).
        """
        statement_ms = int(timeout_s * 1000)
        await _reachable(url, timeout_s)
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            timeout=timeout_s,
            open=False,
            kwargs={"options": f"-c statement_timeout={statement_ms}", "autocommit": True},
        )
        try:
            await pool.open(wait=True, timeout=timeout_s)
            async with pool.connection() as conn:
                await migrate(conn)
        except BaseException as error:
            await pool.close()
            if isinstance(error, psycopg.OperationalError):
                raise ArchiveUnavailable(f"PostgreSQL archive: {str(error)[:200]}") from error
            raise
        return cls(pool)

    @_unavailable
    async def put(self, game: SealedGame) -> None:
        """See `Archive.put`: one upsert."""
        check_sealable(game)
        e, p = game.entry, game.projection
        projection = (
            None
            if p is None
            else Jsonb(
                {
                    "seq": p.seq,
                    "status": p.status,
                    "game": p.game,
                    "standings_json": p.standings_json,
                    "updated_at": p.updated_at,
                    "checkpoint": p.checkpoint,
                }
            )
        )
        async with self.pool.connection() as conn:
            await conn.execute(
                f"INSERT INTO archived_games ({_ENTRY}, token_digest, index_score, projection,"
                " projection_view, events, names) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s,"
                " %s, %s, %s, %s, %s) ON CONFLICT (game_id) DO UPDATE SET ruleset = EXCLUDED.ruleset,"
                " players = EXCLUDED.players, ended_at = EXCLUDED.ended_at,"
                " event_count = EXCLUDED.event_count, checksum = EXCLUDED.checksum,"
                " archived_at = EXCLUDED.archived_at, updated_at = EXCLUDED.updated_at,"
                " token_digest = EXCLUDED.token_digest,"
                " index_score = EXCLUDED.index_score, projection = EXCLUDED.projection,"
                " projection_view = EXCLUDED.projection_view, events = EXCLUDED.events,"
                " names = EXCLUDED.names",
                (
                    e.game_id,
                    e.ruleset,
                    list(e.players),
                    e.ended_at,
                    e.event_count,
                    e.checksum,
                    e.archived_at,
                    e.updated_at,
                    game.token_digest,
                    game.index_score,
                    projection,
                    None if p is None else p.view_json,
                    events_jsonl(game.events),
                    Jsonb(dict(game.names)),
                ),
            )

    @_unavailable
    async def get(self, game_id: str) -> SealedGame | None:
        """See `Archive.get` (the checksum verified)."""
        async with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(
                f"SELECT {_ENTRY}, token_digest, index_score, projection, projection_view,"
                " events, names FROM archived_games WHERE game_id = %s",
                (game_id,),
            )
            row = await cur.fetchone()
        if row is None:
            return None
        body = bytes(row["events"])
        if not body.endswith(b"\n"):
            raise ArchiveCorrupt(game_id, "the events are cut short")
        raw = row["projection"]
        projection = (
            None
            if raw is None
            else ArchivedProjection(
                seq=int(raw["seq"]),
                status=str(raw["status"]),
                game=str(raw["game"]),
                standings_json=str(raw["standings_json"]),
                view_json=bytes(row["projection_view"] or b""),
                updated_at=raw["updated_at"],
                checkpoint=raw["checkpoint"],
            )
        )
        game = SealedGame(
            entry=_entry(row),
            events=tuple(body[:-1].split(b"\n")),
            token_digest=row["token_digest"],
            projection=projection,
            index_score=int(row["index_score"]),
            names={str(k): str(v) for k, v in (row["names"] or {}).items()},
        )
        game.verify()
        return game

    @_unavailable
    async def exists(self, game_id: str) -> bool:
        """See `Archive.exists`."""
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT 1 FROM archived_games WHERE game_id = %s", (game_id,)
            )
            return await cursor.fetchone() is not None

    @_unavailable
    async def entry(self, game_id: str) -> ArchiveEntry | None:
        """See `Archive.entry` (the events column is not read)."""
        async with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(f"SELECT {_ENTRY} FROM archived_games WHERE game_id = %s", (game_id,))
            row = await cur.fetchone()
        return None if row is None else _entry(row)

    @_unavailable
    async def entries(self, game_ids: Sequence[str]) -> list[ArchiveEntry | None]:
        """See `Archive.entries`: one query."""
        async with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(
                f"SELECT {_ENTRY} FROM archived_games WHERE game_id = ANY(%s)", (list(game_ids),)
            )
            found = {row["game_id"]: _entry(row) for row in await cur.fetchall()}
        return [found.get(g) for g in game_ids]

    @_unavailable
    async def list_games(self, after: str | None = None, limit: int = 1000) -> ArchivePage:
        """See `Archive.list_games`: one range scan of the primary key (collation "C": byte
        order, as the other adapters sort)."""
        limit = max(1, limit)
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT game_id FROM archived_games WHERE %s::text IS NULL OR game_id > %s"
                " ORDER BY game_id LIMIT %s",
                (after, after, limit + 1),
            )
            ids = [str(row[0]) for row in await cursor.fetchall()]
        page = tuple(ids[:limit])
        return ArchivePage(page, page[-1] if len(ids) > limit else None)

    @_unavailable
    async def list_by_update(
        self, after: tuple[str, str] | None = None, limit: int = 1000
    ) -> list[tuple[str, str]]:
        """See `Archive.list_by_update`: one range scan of `archived_games_by_update`."""
        key = "coalesce(updated_at, '') COLLATE \"C\""
        where = "" if after is None else f"WHERE {key} < %s OR ({key} = %s AND game_id > %s)"
        args = () if after is None else (after[0], after[0], after[1])
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                f"SELECT {key}, game_id FROM archived_games {where}"  # no input in it
                f" ORDER BY {key} DESC, game_id LIMIT %s",
                (*args, max(1, limit)),
            )
            return [(str(u), str(g)) for u, g in await cursor.fetchall()]

    @_unavailable
    async def count(self) -> int:
        """See `Archive.count`: `count(*)` (an index-only scan of the primary key)."""
        async with self.pool.connection() as conn:
            cursor = await conn.execute("SELECT count(*) FROM archived_games")
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    @_unavailable
    async def delete(self, game_id: str) -> bool:
        """See `Archive.delete`."""
        async with self.pool.connection() as conn:
            cursor = await conn.execute("DELETE FROM archived_games WHERE game_id = %s", (game_id,))
            return bool(cursor.rowcount > 0)

    async def close(self) -> None:
        """Close the pool."""
        await self.pool.close()
