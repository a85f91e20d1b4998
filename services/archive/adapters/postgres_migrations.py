"""The archive's schema, owned by the product and migrated at start: numbered steps, each
applied once, recorded in `scoreledger_migrations` (version, applied_at). Concurrent starts
are serialized by a transaction-scoped advisory lock, so two archivers starting together
apply each step once. A step is never edited once released; a change is a new step.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

LOCK_ID = 0x5C0E1ED6E5
"""The advisory lock key of a migration run (any fixed bigint; one per product)."""

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE archived_games (
            game_id        text COLLATE "C" PRIMARY KEY,
            ruleset        text NOT NULL,
            players        text[] NOT NULL,
            ended_at       text NOT NULL,
            event_count    integer NOT NULL CHECK (event_count > 0),
            checksum       text NOT NULL,
            archived_at    text NOT NULL,
            updated_at     text,
            token_digest   text,
            index_score    bigint NOT NULL,
            projection     jsonb,
            projection_view bytea,
            events         bytea NOT NULL
        );
        CREATE INDEX archived_games_ruleset_ended ON archived_games (ruleset, ended_at);
        """,
    ),
    (
        2,
        """
        CREATE INDEX archived_games_by_update
            ON archived_games ((coalesce(updated_at, '') COLLATE "C") DESC, game_id);
        """,
    ),
    (
        3,
        """
        ALTER TABLE archived_games ADD COLUMN names jsonb NOT NULL DEFAULT '{}'::jsonb;
        """,
    ),
)
"""(version, SQL) in order. `events` holds the game's JSONL (`ports.cold.events_jsonl`),
compressed by PostgreSQL's TOAST; `projection` the final projection's fields but its view,
which is `projection_view` (bytes, as stored); `names` the players' names kept outside the log
(`player_id -> name`, "" once forgotten: `contracts.names`)."""


async def applied_versions(conn: AsyncConnection[Any]) -> set[int] | None:
    """The versions recorded (None: no migrations table yet). Needs only SELECT, so a role
    without CREATE (the archiver's, the reader's) can tell the schema is current."""
    cursor = await conn.execute("SELECT to_regclass('scoreledger_migrations') IS NOT NULL")
    row = await cursor.fetchone()
    if not row or not row[0]:
        return None
    cursor = await conn.execute("SELECT version FROM scoreledger_migrations")
    return {int(r[0]) for r in await cursor.fetchall()}


async def migrate(conn: AsyncConnection[Any]) -> list[int]:
    """Apply the steps not yet recorded, in one transaction under the advisory lock; nothing
    (no DDL, no lock) when every step is recorded, so least-privilege roles start once the
    owner has migrated (`deploy/postgres/roles.sql`).

    Returns the versions applied now (empty: the schema was current).
    Raises: psycopg errors (the transaction is rolled back; nothing half-applied), e.g.
        InsufficientPrivilege for a role without CREATE on a schema not yet migrated.
    """
    done = await applied_versions(conn)
    if done is not None and all(version in done for version, _ in MIGRATIONS):
        return []
    applied: list[int] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_ID,))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS scoreledger_migrations ("
            " version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = await applied_versions(conn) or set()
        for version, sql in MIGRATIONS:
            if version in done:
                continue
            await conn.execute(sql)
            await conn.execute(
                "INSERT INTO scoreledger_migrations (version) VALUES (%s)", (version,)
            )
            applied.append(version)
    return applied
