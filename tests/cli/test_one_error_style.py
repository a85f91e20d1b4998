"""One error style for every command that talks to Redis: with Redis down, with a bad Redis
URL, or with a bad setting, `serve`, `export`, `release`, `forget`, `simulate --inbox` (and
`demo`, for its settings) print the same one line, `scoreledger <command>: ...`, and exit with
the same sysexits code (69 unreachable, 78 a bad setting, named by its variable). The real
commands run as subprocesses, together (a hang guard, not a speed check)."""

from __future__ import annotations

import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest

from services.cli.startup import EXIT_CONFIG, EXIT_NOPERM, EXIT_UNAVAILABLE
from tests.cli.conftest import ROOT, run_module
from tests.cli.test_startup import LIMIT_S, _env, _finish, _one_line
from tests.redis_fixture import free_port

COMMANDS = {
    "serve": ["serve", "--port", "0", "--redis-url"],
    "export": ["export", "g1", "--redis-url"],
    "release": ["release", "g1", "--wait", "0", "--redis-url"],
    "forget": ["forget", "g1", "oren", "--redis-url"],
    "sweep-projections": ["sweep-projections", "--redis-url"],
    "simulate": ["simulate", "--game", "penumbra", "--tables", "1", "--inbox"],
}


def _run_all(url: str, env: dict[str, str]) -> dict[str, tuple[int, str, str]]:
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", *args, url],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in COMMANDS.items()
    }
    return {name: _finish(proc) for name, proc in procs.items()}


def test_every_redis_command_without_redis_says_so_in_one_line_and_exits_69() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens on it
    results = _run_all(url, _env())
    print({name: (code, err.strip()[:120]) for name, (code, _, err) in results.items()})
    for name, (code, out, err) in results.items():
        assert (code, out) == (EXIT_UNAVAILABLE, ""), (name, code, err[:2000])
        assert (
            _one_line(err)
            == f"scoreledger {name}: cannot reach Redis at {url} (connection refused)"
        )


def test_an_unknown_redis_url_option_exits_78_naming_the_setting() -> None:
    """redis-py hands an unknown `?name=` to the connection, which failed with a TypeError on
    the first command ("cannot reach Redis ... (TypeError)", exit 69)."""
    url = f"redis://127.0.0.1:{free_port()}/0?no_such_option=1"
    results = _run_all(url, _env())
    for name, (code, out, err) in results.items():
        assert (code, out) == (EXIT_CONFIG, ""), (name, code, err[:2000])
        line = _one_line(err)
        assert line.startswith(
            f"scoreledger {name}: invalid settings: SCORELEDGER_REDIS_URL: Value error, "
            "unknown query option 'no_such_option'"
        ), line
        assert "TypeError" not in line


def test_a_bad_setting_exits_78_naming_its_variable_for_every_command() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    results = _run_all(url, _env(SCORELEDGER_SHARDS="0"))
    demo = run_module(
        "services.cli.main", "demo", env=_env(SCORELEDGER_SHARDS="0"), timeout=LIMIT_S
    )
    results["demo"] = (demo.returncode, demo.stdout, demo.stderr)
    for name, (code, out, err) in results.items():
        assert (code, out) == (EXIT_CONFIG, ""), (name, code, err[:2000])
        assert _one_line(err).startswith(
            f"scoreledger {name}: invalid settings: SCORELEDGER_SHARDS: "
        ), err


def test_the_known_url_options_are_redis_pys() -> None:
    """Every option redis-py parses is known, and every other known one is a parameter of its
    connection classes (else it would fail as the unknown ones did)."""
    import inspect

    from redis.asyncio.connection import (
        URL_QUERY_ARGUMENT_PARSERS,
        AbstractConnection,
        Connection,
        SSLConnection,
    )

    from services.platform.settings import REDIS_URL_OPTIONS

    taken = {
        name
        for cls in (AbstractConnection, Connection, SSLConnection)
        for name in inspect.signature(cls.__init__).parameters
    }
    assert set(URL_QUERY_ARGUMENT_PARSERS) <= REDIS_URL_OPTIONS
    assert (
        REDIS_URL_OPTIONS - set(URL_QUERY_ARGUMENT_PARSERS) - {"max_connections", "timeout"}
        <= taken
    )


def test_an_unreachable_archive_is_named_in_one_line_and_exits_69(redis_url: str) -> None:
    archive = f"postgresql://127.0.0.1:{free_port()}/archive"  # nothing listens on it
    env = _env(SCORELEDGER_ARCHIVE_URL=archive)
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", *COMMANDS[name], redis_url],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("forget", "export")
    }
    for name, proc in procs.items():
        code, out, err = _finish(proc)
        assert (code, out) == (EXIT_UNAVAILABLE, ""), (name, code, err[:2000])
        line = _one_line(err)
        assert line.startswith(
            f"scoreledger {name}: cannot reach the archive of SCORELEDGER_ARCHIVE_URL"
        ), line


@pytest.mark.postgres
def test_an_archive_refusing_the_role_exits_77_in_one_line(
    redis_url: str, postgres_url: str
) -> None:
    """The server answers and refuses (an unknown role): 77 at once, as Redis's refused
    credentials, not "cannot reach" after the pool's timeout."""
    parts = urlsplit(postgres_url)
    host = parts.hostname or "127.0.0.1"
    refused = urlunsplit(parts._replace(netloc=f"no-such-role-x9:pw@{host}:{parts.port or 5432}"))
    env = _env(SCORELEDGER_ARCHIVE_URL=refused)
    command = [sys.executable, "-m", "services.cli.main", *COMMANDS["export"], redis_url]
    code, out, err = _finish(
        subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    )
    assert (code, out) == (EXIT_NOPERM, ""), (code, err[:2000])
    line = _one_line(err)
    assert line.startswith(
        "scoreledger export: the archive of SCORELEDGER_ARCHIVE_URL refused the connection"
    ), line
    assert "no-such-role-x9" in line
    assert ":pw@" not in line  # no password shown
