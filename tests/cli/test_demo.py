"""`scoreledger demo` end to end in a subprocess, on a throwaway redis-server (REDIS_URL unset):
exit 0, and each game's final standings (read over HTTP) equal `scoreledger score` of its file."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from services.cli.demo_games import example_logs
from tests.cli.conftest import run_module

pytestmark = [pytest.mark.redis, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_demo_runs_end_to_end_on_a_throwaway_redis(tmp_path: Path) -> None:
    assert shutil.which("redis-server"), (
        "redis-server must be on the PATH (deploy/scripts/system-deps.sh)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SCORELEDGER_REDIS_URL")}
    env["COLUMNS"] = "120"
    env["XDG_RUNTIME_DIR"] = str(tmp_path)  # the demo's state file (services.cli.demo_state)
    demo = run_module("services.cli.main", "demo", "--json", env=env, timeout=280)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "a throwaway redis-server" in demo.stderr
    assert "events/s" in demo.stderr
    # the embedded archive: a throwaway directory, each game sealed there and read back
    assert "(a throwaway directory;" in demo.stderr
    assert demo.stderr.count("left Redis for the archive") == len(example_logs())
    # how to open the scoreboard: the kept-running demo, whose Redis holds the games
    assert "`.venv/bin/scoreledger demo --keep-running`" in " ".join(demo.stderr.split())
    # its pages stopped with it: it says so and prints no link that is dead by now
    assert "The demo has stopped, and its pages with it." in " ".join(demo.stderr.split())
    assert "http://" not in demo.stderr
    assert not (tmp_path / "scoreledger" / "scoreledger-demo.json").exists()
    # the small tournament beside the games: its room screen, and where it ended
    assert "/tv/tournaments/demo-cup" in " ".join(demo.stderr.split())
    said = " ".join(demo.stderr.split())
    assert "2 of 2 rounds seated, 4 table games played by the simulator (" in said
    assert "3 of 4 tables approved, 1 awaiting approval" in said
    finals = [json.loads(line) for line in demo.stdout.splitlines()]
    logs = example_logs()
    assert len(finals) == len(logs) >= 2
    for log, final in zip(logs, finals, strict=True):
        score = run_module("services.cli.main", "score", str(log), "--json", env=env, timeout=60)
        assert score.returncode == 0, score.stderr
        assert final == json.loads(score.stdout), log.name


def test_demo_without_any_redis_says_how_to_get_one(tmp_path: Path) -> None:
    bare_path = tmp_path / "bin"
    bare_path.mkdir()
    (bare_path / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SCORELEDGER_REDIS_URL")}
    env["PATH"] = str(bare_path)  # no redis-server on it
    demo = run_module("services.cli.main", "demo", env=env, timeout=60)
    assert demo.returncode == 1
    assert "apt-get install redis-server" in demo.stderr
    assert "docker compose -f deploy/compose.yaml up redis" in demo.stderr
