"""Regression tests (docs/decisions/0019-hostile-input-at-every-door.md): `scoreledger serve`'s start-up
line (services/cli/startup.py) never carries the password, whatever the URL holds; a wrong
cluster password exits 77; a taken port is one line on stderr, exit 70.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from services.adapters.redis.launcher import RedisProcess
from services.cli.startup import StartupFailure, check_redis, masked
from services.platform.settings import CommonSettings
from tests.cli.conftest import ROOT
from tests.redis_fixture import RedisServer, free_port

SECRET = "hunter2"


@pytest.mark.parametrize(
    "template",
    [
        "redis://ingest:{s}@x{s}@127.0.0.1:{port}/0",  # an unencoded '@' in the password
        "redis://ingest:{s}/x@127.0.0.1:{port}/0",  # an unencoded '/' (redis-py's ValueError)
        "redis://ingest:{s}#x@127.0.0.1:{port}/0",  # an unencoded '#'
        "redis://ingest:{s}?x@127.0.0.1:{port}/0",  # an unencoded '?'
        "redis+cluster://ingest:{s}/x@127.0.0.1:{port}",  # parse_target quotes the whole URL
        "unix:///tmp/break-no-{port}.sock?db=0&password={s}",  # redis-py's documented unix form
        "redis://127.0.0.1:{port}/0?password={s}",  # the query-string password redis-py reads
    ],
)
def test_startup_line_never_echoes_a_password_with_url_special_characters(
    template: str,
) -> None:
    """A password holding '@', '/', '#' or '?' (redis-py splits at the last '@'), a cluster
    URL, a query-string password: the line (the masked URL, and redis-py's ValueError text
    scrubbed of quoted URL parts) shows no piece of the password."""
    url = template.format(s=SECRET, port=free_port())  # nothing listens on the port
    with pytest.raises(StartupFailure) as failed:
        check_redis(CommonSettings(redis_url=url), timeout_s=1.0)
    line = str(failed.value)
    print(f"\n{url!r} -> exit {failed.value.code}: {line}")
    assert SECRET not in line, line
    assert "x@" not in line, line


def test_masked_hides_the_whole_password_with_an_at_sign() -> None:
    """`masked` hides the whole password, up to its last '@'."""
    shown = masked("redis://ingest:p@ssw0rd@redis:6379/0")
    print(f"\nmasked -> {shown}")
    assert "ssw0rd" not in shown, shown


@pytest.mark.redis
def test_port_in_use_is_one_line_on_stderr(tmp_path: Path) -> None:
    """docs/operating/configuration.md says a start-up failure is one line on stderr: with the port taken, the
    port is checked before uvicorn starts (none of its logs), one line, exit 70."""
    server = RedisServer(tmp_path).start()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCORELEDGER_")}
    env.pop("REDIS_URL", None)
    command = [sys.executable, "-m", "services.cli.main", "serve", "--no-inbox"]
    command += ["--no-projector", "--no-query", "--port", str(port), "--redis-url", server.url]
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
        )
    finally:
        taken.close()
        server.stop()
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    print(f"\nport taken: exit {done.returncode}, {len(lines)} stderr lines, last {lines[-1:]}")
    assert done.returncode == 70
    assert len(lines) == 1, done.stderr[:1500]


@pytest.mark.redis
def test_wrong_password_on_a_cluster_is_exit_77_not_69(tmp_path: Path) -> None:
    """A one-node cluster (all slots, `requirepass right`) and a cluster URL with the wrong
    password: the cluster client raises `RedisClusterException` whose cause is the
    `AuthenticationError`; `classify` follows the cause chain: exit 77, not 69."""
    # the launcher picks a port whose cluster bus port (+10000) is free too
    node = RedisProcess(tmp_path, cluster=True, extra=["--requirepass", "right"]).start()
    port = node.port
    try:
        admin = redis.Redis(port=port, password="right")
        admin.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)  # type: ignore[no-untyped-call]
        for _ in range(100):
            info = admin.execute_command("CLUSTER", "INFO")  # type: ignore[no-untyped-call]
            if b"cluster_state:ok" in info:
                break
            time.sleep(0.05)
        admin.close()
        url = f"redis+cluster://:wrong@127.0.0.1:{port}"
        with pytest.raises(StartupFailure) as failed:
            check_redis(CommonSettings(redis_url=url), timeout_s=2.0)
    finally:
        node.stop()
    print(f"\ncluster, wrong password -> exit {failed.value.code}: {failed.value}")
    assert failed.value.code == 77, str(failed.value)
