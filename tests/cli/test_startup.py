"""`scoreledger serve` (every role) without a Redis, or with refused credentials: one line on
stderr naming what is wrong, a documented exit code, within seconds; no traceback, no secret.
The real command runs as a subprocess. Source: docs/decisions/0019-hostile-input-at-every-door.md ("`serve` without Redis prints a 7 kB
JSON traceback with the parsed games in it and exits 3"), docs/decisions/0011-faults-are-answered-not-crashed.md ("Start-up that fails fast").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services.cli.startup import EXIT_CONFIG, EXIT_NOPERM, EXIT_UNAVAILABLE, masked
from tests.cli.conftest import ROOT
from tests.redis_fixture import free_port

ROLES = {
    "all": [],
    "ingest": ["--no-inbox", "--no-projector", "--no-query"],
    "inbox": ["--no-ingest", "--no-projector", "--no-query"],
    "projector": ["--no-ingest", "--no-inbox", "--no-query"],
    "query": ["--no-ingest", "--no-inbox", "--no-projector"],
}
LIMIT_S = 60.0
"""A hang guard, not a speed check: five processes start together on a shared 2-core machine
(importing the stack is most of it; the PING itself gives up after ~3 s)."""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCORELEDGER_")}
    env.pop("REDIS_URL", None)
    return {**env, **extra}


def _start(flags: list[str], url: str, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "services.cli.main", "serve", *flags]
    command += ["--port", str(free_port()), "--redis-url", url]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=LIMIT_S + 10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return -1, out, err
    return proc.returncode, out, err


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err[:2000]
    assert "Traceback" not in err
    return lines[0]


def test_every_role_without_redis_says_so_in_one_line() -> None:
    port = free_port()  # nothing listens on it
    url = f"redis://127.0.0.1:{port}/0"
    start = time.monotonic()
    procs = {role: _start(flags, url, _env()) for role, flags in ROLES.items()}
    results = {role: _finish(proc) for role, proc in procs.items()}
    took = time.monotonic() - start
    print(
        f"\nno redis: {len(results)} roles, exit codes "
        f"{ {role: r[0] for role, r in results.items()} }, all done in {took:.1f} s"
    )
    for role, (code, out, err) in results.items():
        assert code == EXIT_UNAVAILABLE, (role, code, err[:2000])
        assert out == ""
        line = _one_line(err)
        assert line == f"scoreledger serve: cannot reach Redis at {url} (connection refused)"
    assert took < LIMIT_S


@pytest.mark.redis
def test_refused_credentials_name_the_user_and_never_the_password(tmp_path: Path) -> None:
    from tests.deploy.test_redis_acl import AclServer

    server = AclServer(tmp_path).start()
    try:
        wrong = "not-the-ingest-password-0123456789"
        env = _env(SCORELEDGER_REDIS_USERNAME="ingest", SCORELEDGER_REDIS_PASSWORD=wrong)
        plain = f"redis://127.0.0.1:{server.port}/0"
        in_url = server.url("query", "wrong-query-password-abcdef")
        procs = {
            "ingest (settings)": _start(ROLES["ingest"], plain, env),
            "query (URL)": _start(ROLES["query"], in_url, _env()),
        }
        results = {name: _finish(proc) for name, proc in procs.items()}
    finally:
        server.stop()
    lines = {name: _one_line(r[2]) for name, r in results.items()}
    print(f"\nrefused credentials: { {n: r[0] for n, r in results.items()} } {lines}")
    assert {r[0] for r in results.values()} == {EXIT_NOPERM}
    assert lines["ingest (settings)"] == (
        f"scoreledger serve: Redis at {plain} refused the credentials of user 'ingest'"
    )
    assert lines["query (URL)"] == (
        f"scoreledger serve: Redis at {masked(in_url)} refused the credentials of user 'query'"
    )
    for _code, out, err in results.values():
        assert wrong not in out + err
        assert "wrong-query-password" not in out + err


@pytest.mark.parametrize(
    ("env", "url", "expected"),
    [
        ({}, "redis+cluster://127.0.0.1:1/3", "invalid settings: SCORELEDGER_REDIS_URL: a cluster"),
        (
            {"SCORELEDGER_SHARDS": "0"},
            "redis://127.0.0.1:1/0",
            "invalid settings: SCORELEDGER_SHARDS:",
        ),
        # another role's setting, with Redis unreachable: still 78, not 69 (checked first)
        (
            {"SCORELEDGER_INBOX_INTEGRATIONS": "Table_8"},
            "redis://127.0.0.1:1/0",
            "invalid settings: SCORELEDGER_INBOX_INTEGRATIONS:",
        ),
        (
            {"SCORELEDGER_BATCH": "0"},
            "redis://127.0.0.1:1/0",
            "invalid settings: SCORELEDGER_BATCH:",
        ),
        (
            {},
            "notaurl",
            "invalid settings: SCORELEDGER_REDIS_URL: Value error, the scheme must be one of "
            "redis, rediss, unix, redis+cluster, rediss+cluster",
        ),
    ],
)
def test_bad_settings_exit_78(env: dict[str, str], url: str, expected: str) -> None:
    code, out, err = _finish(_start(ROLES["query"], url, _env(**env)))
    assert (code, out) == (EXIT_CONFIG, ""), err[:2000]
    assert _one_line(err).startswith(f"scoreledger serve: {expected}")


@pytest.mark.redis
def test_a_role_refused_later_in_its_start_up_ends_with_one_line(tmp_path: Path) -> None:
    """The PING passes (the user exists, its password is right), then the inbox's start-up is
    refused by the ACL (user `query` may not create a consumer group): the last line names it,
    exit 77, no traceback."""
    from tests.deploy.test_redis_acl import AclServer

    server = AclServer(tmp_path).start()
    try:
        env = _env(
            SCORELEDGER_REDIS_USERNAME="query", SCORELEDGER_REDIS_PASSWORD=server.passwords["query"]
        )
        url = f"redis://127.0.0.1:{server.port}/0"
        code, out, err = _finish(_start(ROLES["inbox"], url, env))
    finally:
        server.stop()
    last = err.strip().splitlines()[-1]
    print(f"\ninbox as query: exit {code}; {last}")
    assert (code, out) == (EXIT_NOPERM, "")
    assert "Traceback" not in err
    assert last.startswith(f"scoreledger serve: a role failed to start: Redis at {url} refused")
    assert "'xgroup|create'" in last
    assert server.passwords["query"] not in err


@pytest.mark.redis
def test_the_check_passes_on_a_live_redis(redis_url: str) -> None:
    """The session's Redis (a single node, or a cluster with SCORELEDGER_TEST_REDIS=cluster)."""
    from services.cli.startup import check_redis
    from services.platform.settings import CommonSettings

    check_redis(CommonSettings(redis_url=redis_url))  # raises StartupFailure otherwise


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://ingest:p@ss/w#rd@redis:6379/0", "redis://***"),  # '#' in the userinfo
        ("redis://ingest:p@ss/w@redis:6379/0", "redis://ingest:***@redis:6379/0"),
        ("redis://redis:6379/0?password=a@b", "redis://***"),  # undecidable: nothing shown
        ("redis+cluster://u:pw@h1:7000,h2:7001", "redis+cluster://u:***@h1:7000,h2:7001"),
        ("rediss://:pw@h:6380/2?ssl_cert_reqs=none", "rediss://***@h:6380/2?…"),
        ("not a url hunter2", "***"),
    ],
)
def test_masked_shows_scheme_user_and_hosts_only(url: str, shown: str) -> None:
    """Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): whatever the password holds, `masked` shows no piece of it."""
    print(f"\n{url!r} -> {masked(url)!r}")
    assert masked(url) == shown


def test_scrubbed_withholds_a_message_quoting_the_url() -> None:
    """Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): redis-py quotes parts of a bad URL in its ValueError; none reaches the line."""
    from services.cli.startup import scrubbed

    url = "redis://ingest:hunter2/x@h:1/0"
    said = scrubbed("Port could not be cast to integer value as hunter2/x", url)
    assert "hunter2" not in said
    quoted = scrubbed("Port could not be cast to integer value as 'hunter2/x'", url)
    assert quoted.endswith("'…'")
    assert scrubbed("no permissions to run the 'xadd' command", url).endswith("'xadd' command")
