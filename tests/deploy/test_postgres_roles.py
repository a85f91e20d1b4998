"""The archive's PostgreSQL roles (deploy/postgres/roles.sql) against a real server: the owner
migrates, the archiver reads and writes archived games but no DDL, the reader only reads;
both start without migrating once the owner has."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from services.archive.adapters.postgres import PostgresArchive
from tests.ports.test_archive import sealed
from tests.postgres_fixture import fresh_database

pytestmark = pytest.mark.postgres
ROLES_SQL = Path(__file__).resolve().parents[2] / "deploy" / "postgres" / "roles.sql"
NAMES = ("scoreledger_owner", "scoreledger_archiver", "scoreledger_reader")


@pytest.fixture
def role_urls(postgres_server_url: str) -> Iterator[dict[str, str]]:
    """roles.sql run on a fresh database, its roles suffixed (roles are server-wide): each
    role's URL, by its short name (owner, archiver, reader)."""
    suffix = uuid.uuid4().hex[:8]
    sql = ROLES_SQL.read_text()
    for name in NAMES:
        sql = sql.replace(name, f"{name}_{suffix}")
    passwords = {p: f"'pw-{uuid.uuid4().hex}'" for p in ("owner_pw", "archiver_pw", "reader_pw")}
    for variable, literal in passwords.items():
        sql = sql.replace(f":'{variable}'", literal)  # what psql -v does with :'name'

    with fresh_database(postgres_server_url) as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql)
        base, _, db = url.rpartition("/")
        host = base.rpartition("@")[2]
        yield {
            name.split("_")[1]: f"postgresql://{name}_{suffix}:{passwords[pw].strip(chr(39))}"
            f"@{host}/{db}"
            for name, pw in zip(NAMES, passwords, strict=True)
        }
    with psycopg.connect(postgres_server_url, autocommit=True) as conn:
        for name in NAMES:
            conn.execute(f'DROP ROLE IF EXISTS "{name}_{suffix}"')


async def test_each_role_does_its_part_and_no_more(role_urls: dict[str, str]) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):  # no DDL before the owner
        await PostgresArchive.open(role_urls["archiver"])
    owner = await PostgresArchive.open(role_urls["owner"])  # migrates
    await owner.close()
    archiver = await PostgresArchive.open(role_urls["archiver"])
    reader = await PostgresArchive.open(role_urls["reader"])
    try:
        game = sealed("g-1")
        await archiver.put(game)
        assert await reader.get("g-1") == game
        assert (await reader.list_games()).games == ("g-1",)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await reader.put(sealed("g-2"))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await reader.delete("g-1")
        async with archiver.pool.connection() as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                await conn.execute("DROP TABLE archived_games")
        assert await archiver.delete("g-1")
    finally:
        await archiver.close()
        await reader.close()
