"""A newcomer's path (docs/getting-started.md, "Keep the demo running"): `--help` lists the
commands in the order a newcomer needs them, without exit codes; a running demo's state file
gives the other commands its URL and Redis; the demo's QR codes encode an address a phone
reaches, or the demo says why not."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import demo_state
from services.cli.demo_state import DemoState
from services.cli.main import app
from tests.redis_fixture import free_port

ROOT = Path(__file__).resolve().parents[2]


def _commands(help_text: str) -> list[tuple[str, str]]:
    """(name, first line of help) of each row of the Commands panel."""
    panel = help_text.split("Commands", 1)[1]
    rows = re.findall(r"^│ ([a-z][a-z-]+) +(.*?)│$", panel, re.MULTILINE)
    return [(name, text.strip()) for name, text in rows]


def test_help_lists_the_commands_a_newcomer_needs_first_without_exit_codes() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    names = [name for name, _ in _commands(result.output)]
    assert names[:4] == ["demo", "score", "publish", "serve"]
    assert {"export", "forget", "release", "webhooks", "tournament", "league"} <= set(names)
    panel = result.output.split("Commands", 1)[1]
    assert not re.search(r"\bExits?\b|\b(69|77|78)\b", panel), panel


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    for name in ("REDIS_URL", "SCORELEDGER_REDIS_URL", "SCORELEDGER_ARCHIVE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_state_file_names_a_live_demo_and_a_dead_one_is_dropped(state_dir: Path) -> None:
    assert demo_state.running_demo() is None
    live = DemoState(os.getpid(), "http://127.0.0.1:5", "redis://127.0.0.1:6/0")
    path = demo_state.write_state(live)
    assert path == state_dir / "scoreledger" / "scoreledger-demo.json"
    assert path.stat().st_mode & 0o777 == 0o600  # a configured Redis URL may hold a password
    assert demo_state.running_demo() == live
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    demo_state.write_state(DemoState(dead.pid, "http://x:1", "redis://x:2/0"))
    assert demo_state.running_demo() is None
    assert not path.exists()


def test_environment_and_option_win_over_the_running_demo(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo_state.write_state(DemoState(os.getpid(), "http://h:1", "redis://h:2/0"))
    assert demo_state.redis_from_demo("redis://given:1/0") is None
    assert demo_state.redis_from_demo(None) is not None
    monkeypatch.setenv("REDIS_URL", "redis://env:1/0")
    assert demo_state.redis_from_demo(None) is None


def test_publish_goes_to_the_running_demo_by_default(state_dir: Path, trickerion_log: Path) -> None:
    port = free_port()  # nothing listens there: the error names the URL publish chose
    demo_state.write_state(
        DemoState(os.getpid(), f"http://127.0.0.1:{port}", "redis://127.0.0.1:1/0")
    )
    result = CliRunner().invoke(app, ["publish", str(trickerion_log)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert f"publishing to the running demo at http://127.0.0.1:{port}" in said
    assert f"cannot reach http://127.0.0.1:{port}" in said


@pytest.mark.redis
def test_export_uses_the_running_demo_redis_and_says_so(
    state_dir: Path, clean_redis_url: str
) -> None:
    demo_state.write_state(DemoState(os.getpid(), "http://127.0.0.1:1", clean_redis_url))
    result = CliRunner().invoke(app, ["export", "no-such-game"], env={"COLUMNS": "200"})
    said = " ".join(result.output.split())
    assert "using the running demo's Redis" in said
    assert result.exit_code == 1, said  # the game is unknown there; Redis was reached (not 69)
    assert "no-such-game" in said


def test_qr_base_is_a_network_address_on_every_interface_or_says_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = demo_state.lan_address()  # this machine's: maybe none, never loopback
    assert found is None or not found.startswith("127.")
    base, why = demo_state.phone_base("127.0.0.1", 8123)
    assert base is None
    assert "only this machine reaches" in why
    assert "--host 0.0.0.0" in why
    monkeypatch.setattr(demo_state, "lan_address", lambda: "192.168.1.20")
    assert demo_state.phone_base("0.0.0.0", 8123)[0] == "http://192.168.1.20:8123"
    monkeypatch.setattr(demo_state, "lan_address", lambda: None)
    base, why = demo_state.phone_base("0.0.0.0", 8123)
    assert base is None
    assert "no network address" in why


def test_a_kept_running_demo_prints_every_page_link_at_the_phones_address() -> None:
    """With `--host 0.0.0.0` a phone on the network opens the game and TV links too, not only
    the tournament's: no link names 127.0.0.1 once a network address is known."""
    from io import StringIO

    from rich.console import Console

    from services.cli.demo import DemoReport, _print_links

    out = StringIO()
    report = DemoReport([], 0, 0.0, 0.0, "http://127.0.0.1:8123", tokens={"pen-demo": "t" * 32})
    phones = "http://192.168.1.20:8123"
    _print_links(Console(file=out, width=300), report, "http://127.0.0.1:8123", phones, "qr")
    links = re.findall(r"http://[^\s]+", out.getvalue())
    assert f"{phones}/games/pen-demo" in links
    assert f"{phones}/tv/pen-demo" in links
    assert all(link.startswith(phones) for link in links), links
