"""`scoreledger publish` to a running `serve` (ingest + projector + query), then `export` and
`score`: the log goes through HTTP and comes back scoring the same."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.cli.remote import read_log

pytestmark = pytest.mark.redis
runner = CliRunner()


def test_publish_export_score_round_trip(
    serve_process: Callable[..., str], clean_redis_url: str, trickerion_log: Path, tmp_path: Path
) -> None:
    url = serve_process("--no-inbox")
    published = runner.invoke(app, ["publish", str(trickerion_log), "--url", url, "--batch", "25"])
    assert published.exit_code == 0, published.output
    assert "published 106 events" in published.stderr
    assert "already stored" not in published.stderr
    saved = json.loads(Path(f"{trickerion_log}.tokens.json").read_text())
    assert set(saved) == {"tr-demo-1"}
    assert f"write token chosen for tr-demo-1: {saved['tr-demo-1']}" in published.stderr
    again = runner.invoke(app, ["publish", str(trickerion_log), "--url", url])
    assert again.exit_code == 0, again.output  # the saved token: every event a duplicate
    assert "write token chosen" not in again.stderr
    assert "published 106 events" in again.stderr
    said = " ".join(again.stderr.split())  # the console wraps at its width
    assert "106 of them already stored (duplicates, not appended again)" in said
    out = tmp_path / "back.jsonl"
    exported = runner.invoke(
        app, ["export", "tr-demo-1", "--out", str(out), "--redis-url", clean_redis_url]
    )
    assert exported.exit_code == 0, exported.output
    assert [e.event_id for e in read_log(out)] == [e.event_id for e in read_log(trickerion_log)]
    original = json.loads(runner.invoke(app, ["score", str(trickerion_log), "--json"]).stdout)
    assert json.loads(runner.invoke(app, ["score", str(out), "--json"]).stdout) == original
    with httpx.Client(base_url=url) as client:
        assert client.get("/games/tr-demo-1/events?limit=1").json()["version"] == 106


def test_publish_refused_batch_stops_with_the_reason(
    serve_process: Callable[..., str], penumbra_log: Path, tmp_path: Path
) -> None:
    url = serve_process("--no-inbox", "--no-projector", "--no-query")
    lines = penumbra_log.read_text(encoding="utf-8").splitlines()
    gap = tmp_path / "gap.jsonl"
    gap.write_text(
        "\n".join([lines[0], lines[1], lines[3]]) + "\n", encoding="utf-8"
    )  # seq 4 after 2
    result = runner.invoke(app, ["publish", str(gap), "--url", url, "--batch", "1"])
    assert result.exit_code == 1
    assert "ingest answered 409 for the batch from seq 4" in result.stderr


def test_publish_unreachable_service(penumbra_log: Path) -> None:
    from tests.redis_fixture import free_port

    result = runner.invoke(
        app, ["publish", str(penumbra_log), "--url", f"http://127.0.0.1:{free_port()}"]
    )
    assert result.exit_code == 1
    assert "cannot reach" in result.stderr


def test_publish_saves_the_token_before_sending_anything(
    penumbra_log: Path, tmp_path: Path
) -> None:
    """The service is unreachable: nothing was sent, yet the game's token is already saved and
    printed (a creator whose answer is lost can always retry with it)."""
    from tests.redis_fixture import free_port

    tokens = tmp_path / "t.json"
    result = runner.invoke(
        app,
        [
            "publish",
            str(penumbra_log),
            "--url",
            f"http://127.0.0.1:{free_port()}",
            "--tokens-file",
            str(tokens),
        ],
    )
    assert result.exit_code == 1
    saved = json.loads(tokens.read_text())
    assert len(saved) == 1
    ((game_id, token),) = saved.items()
    assert len(token) >= 43
    assert f"write token chosen for {game_id}: {token}" in result.stderr
    assert tokens.stat().st_mode & 0o077 == 0  # owner-only


def test_publish_to_an_existing_game_without_its_token_keeps_no_token(
    serve_process: Callable[..., str], penumbra_log: Path, tmp_path: Path
) -> None:
    """A game that exists has a token of its own: `publish` without `--token` must not leave a
    tokens file holding a token it chose (it wrote a random one, never the game's)."""
    url = serve_process("--no-inbox", "--no-projector", "--no-query")
    created = runner.invoke(app, ["publish", str(penumbra_log), "--url", url])
    assert created.exit_code == 0, created.output
    game_id = read_log(penumbra_log)[0].game_id
    again = tmp_path / "again.jsonl"  # the same log elsewhere: no tokens file beside it
    again.write_text(penumbra_log.read_text(encoding="utf-8"), encoding="utf-8")
    refused = runner.invoke(app, ["publish", str(again), "--url", url])
    assert refused.exit_code == 1
    assert "ingest answered 403" in refused.stderr
    assert f"{game_id} exists already with another write token" in " ".join(refused.stderr.split())
    assert not Path(f"{again}.tokens.json").exists()
    tail = tmp_path / "tail.jsonl"  # a continuation (from seq 3): nothing to choose
    tail.write_text(
        "\n".join(penumbra_log.read_text(encoding="utf-8").splitlines()[2:]) + "\n",
        encoding="utf-8",
    )
    kept = tmp_path / "kept.json"
    kept.write_text('{"other-game": "' + "k" * 43 + '"}\n', encoding="utf-8")
    continued = runner.invoke(app, ["publish", str(tail), "--url", url, "--tokens-file", str(kept)])
    assert continued.exit_code == 1
    assert "ingest answered 401" in continued.stderr
    assert "write token chosen" not in continued.stderr
    assert json.loads(kept.read_text()) == {"other-game": "k" * 43}
