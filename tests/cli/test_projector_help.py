"""`python -m services.cli.projector --help` prints its usage and exits 0 without starting a
projector (it used to ignore the flag and write fence keys into whatever Redis REDIS_URL named)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.conftest import run_module

ROOT = Path(__file__).resolve().parents[2]


def test_help_prints_usage_and_touches_no_redis() -> None:
    # an address nothing listens on: had it started, it would log start_failed and exit 1
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:9/0"}
    done = run_module("services.cli.projector", "--help", env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage: python -m services.cli.projector" in done.stdout
    assert "start_failed" not in done.stdout + done.stderr


def test_an_unknown_argument_is_refused_with_exit_2() -> None:
    done = run_module("services.cli.projector", "--shards=4", timeout=120)
    assert done.returncode == 2
    assert "unrecognized arguments: --shards=4" in done.stderr
