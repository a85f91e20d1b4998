"""`scoreledger export` against a real Redis: the exported log scores the same as the original."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.cli.remote import read_log
from tests.cli.conftest import store_log

pytestmark = pytest.mark.redis
runner = CliRunner()


@pytest.mark.parametrize("log_name", ["trickerion-demo.jsonl", "penumbra-demo.jsonl"])
def test_export_then_score_gives_the_same_standings(
    clean_redis_url: str, tmp_path: Path, log_name: str
) -> None:
    log = Path(__file__).parent / "data" / log_name
    store_log(clean_redis_url, log)
    game_id = read_log(log)[0].game_id
    out = tmp_path / "exported.jsonl"
    exported = runner.invoke(
        app, ["export", game_id, "--out", str(out), "--redis-url", clean_redis_url]
    )
    assert exported.exit_code == 0, exported.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(read_log(log))
    assert all(json.loads(line)["recorded_at"] for line in lines)  # stamped by the store
    original = runner.invoke(app, ["score", str(log), "--json"])
    again = runner.invoke(app, ["score", str(out), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == json.loads(original.stdout)


def test_export_to_stdout_and_unknown_game(clean_redis_url: str) -> None:
    log = Path(__file__).parent / "data" / "penumbra-demo.jsonl"
    store_log(clean_redis_url, log)
    shown = runner.invoke(app, ["export", "pe-demo-1", "--redis-url", clean_redis_url])
    assert shown.exit_code == 0
    assert [json.loads(line)["seq"] for line in shown.stdout.splitlines()] == list(range(1, 9))
    missing = runner.invoke(app, ["export", "no-such-game", "--redis-url", clean_redis_url])
    assert missing.exit_code == 1
    assert "no game 'no-such-game'" in missing.stderr
