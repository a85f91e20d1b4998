"""A real PostgreSQL for tests, found in this order (never a silent skip):

1. `SCORELEDGER_TEST_POSTGRES_URL` (a server URL whose user may CREATE DATABASE);
2. the local server at 127.0.0.1:5432 as user `postgres` (trust auth), if it answers;
3. testcontainers' PostgreSQL, where a Docker engine answers;
4. a throwaway server from the `initdb` / `postgres` binaries on a free port (as user
   `postgres` when run as root: initdb refuses root).

`fresh_database(server_url)` creates a database of its own for one test and drops it after.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

from tests.redis_fixture import docker_answers, free_port

ENV = "SCORELEDGER_TEST_POSTGRES_URL"
LOCAL = "postgresql://postgres@127.0.0.1:5432/postgres"


def answers(url: str, timeout_s: float = 2.0) -> bool:
    """True when a server at `url` accepts a connection within `timeout_s`."""
    try:
        with psycopg.connect(url, connect_timeout=max(1, int(timeout_s))):
            return True
    except psycopg.Error:
        return False


def _wait(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not answers(url):
        if time.monotonic() > deadline:
            raise TimeoutError(f"PostgreSQL at {url} did not answer within {timeout_s}s")
        time.sleep(0.2)


def _binary(name: str) -> str | None:
    """`name` on the PATH, else in Debian's /usr/lib/postgresql/<version>/bin (newest)."""
    found = shutil.which(name)
    if found is not None:
        return found
    candidates = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return str(candidates[-1]) if candidates else None


@contextlib.contextmanager
def _binaries(tmp_dir: Path) -> Iterator[str]:
    """A server started from `initdb` and `postgres` in `tmp_dir`, stopped after."""
    initdb, postgres = _binary("initdb"), _binary("postgres")
    if initdb is None or postgres is None:
        raise RuntimeError(f"no PostgreSQL: set {ENV}, start Docker, or install postgresql")
    data = tmp_dir / "pgdata"
    prefix: list[str] = []
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        prefix = ["runuser", "-u", "postgres", "--"]
        tmp_dir.chmod(0o777)
    subprocess.run(
        [*prefix, initdb, "-D", str(data), "-U", "postgres", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    port = free_port()
    proc = subprocess.Popen(
        [
            *prefix,
            postgres,
            "-D",
            str(data),
            "-p",
            str(port),
            "-k",
            str(tmp_dir),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        _wait(url, 30)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextlib.contextmanager
def provide_postgres_url(tmp_dir: Path) -> Iterator[str]:
    """Yield a server URL (a user that may create databases), by the module's order.

    Raises:
        RuntimeError: none of the four ways works (the caller turns it into pytest.fail).
    """
    if url := os.environ.get(ENV):
        _wait(url, 10)
        yield url
        return
    if answers(LOCAL):
        yield LOCAL
        return
    if docker_answers():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()
        return
    with _binaries(tmp_dir) as url:
        yield url


def _with_db(url: str, name: str) -> str:
    """`url` with its database replaced by `name`."""
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


@contextlib.contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A new database on `server_url` for one test (`sl_test_<random>`), dropped after."""
    name = f"sl_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
