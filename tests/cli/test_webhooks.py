"""`scoreledger webhooks ...` against a real Redis: an operator adds, lists, rotates, tests,
reads the log of and removes an endpoint; refusals name their rule and exit 1; Redis away or a
bad setting: one line and 69 or 78, as every command that talks to Redis."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from tests.redis_fixture import free_port
from tests.trickle import elapsed_s, trickling_receiver

pytestmark = pytest.mark.redis
runner = CliRunner()
URL = "http://127.0.0.1:9/hook"  # port 9 (discard): nothing answers


@pytest.fixture(autouse=True)
def loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The receivers here are on loopback: allowed as an operator allows them."""
    monkeypatch.setenv("SCORELEDGER_WEBHOOK_ALLOW_PRIVATE", "true")


def run(url: str, *args: str) -> tuple[int, str]:
    done = runner.invoke(app, ["webhooks", *args, "--redis-url", url])
    return done.exit_code, done.output


def test_an_endpoint_from_add_to_remove(clean_redis_url: str) -> None:
    code, text = run(
        clean_redis_url, "add", URL, "--game", "g1", "--events", "game.ended,event.voided"
    )
    assert code == 0, text
    secret = next(line.split(": ")[1] for line in text.splitlines() if line.startswith("secret"))
    assert secret.startswith("whsec_")
    code, text = run(clean_redis_url, "list")
    assert code == 0
    assert "g1" in text
    assert "game.ended" in text
    assert secret not in text  # masked
    code, text = run(clean_redis_url, "rotate-secret", URL, "--window", "60")
    assert code == 0
    assert "old whsec_" in text
    assert "signs until" in text
    code, text = run(clean_redis_url, "test", URL)
    assert code == 1  # nothing listens on port 9
    assert text.startswith("failed")
    code, text = run(clean_redis_url, "deliveries", URL, "--json")
    assert code == 0
    [entry] = [json.loads(line) for line in text.splitlines()]
    assert (entry["type"], entry["status"], entry["attempts"]) == ("webhook.test", "failed", 1)
    code, text = run(clean_redis_url, "replay", entry["id"])
    assert (code, f"queued {entry['id']}" in text) == (0, True)
    assert run(clean_redis_url, "remove", URL)[0] == 0
    code, text = run(clean_redis_url, "remove", URL)
    assert code == 1
    assert "webhook.unknown" in text


def test_refusals_name_their_rule(clean_redis_url: str) -> None:
    code, text = run(clean_redis_url, "add", "not a url")
    assert (code, text.startswith("webhook.url:")) == (1, True)
    code, text = run(clean_redis_url, "add", URL, "--events", "game.over")
    assert (code, text.startswith("webhook.events:")) == (1, True)
    code, text = run(clean_redis_url, "replay", "msg_none")
    assert (code, text.startswith("webhook.delivery_unknown:")) == (1, True)


@pytest.mark.parametrize("args", [["list"], ["add", URL]])
def test_redis_away_is_one_line_and_exit_69_as_every_redis_command(args: list[str]) -> None:
    code, text = run(f"redis://127.0.0.1:{free_port()}/0", *args)
    assert code == 69
    assert text.startswith("scoreledger webhooks: cannot reach Redis at redis://127.0.0.1:")
    assert len(text.strip().splitlines()) == 1


def test_a_bad_setting_exits_78_naming_it() -> None:
    code, text = run("redis://127.0.0.1:6379/0?no_such_option=1", "list")
    assert code == 78
    assert "SCORELEDGER_REDIS_URL" in text


def test_the_delivery_log_piped_keeps_whole_ids_and_times(clean_redis_url: str) -> None:
    # Written to a pipe, rich assumed 80 columns and cut "2026-12-…" and "msg_…" to fit.
    assert run(clean_redis_url, "add", URL)[0] == 0
    assert run(clean_redis_url, "test", URL)[0] == 1  # nothing listens on port 9
    code, text = run(clean_redis_url, "deliveries", URL, "--json")
    [entry] = [json.loads(line) for line in text.splitlines()]
    code, text = run(clean_redis_url, "deliveries", URL)
    assert code == 0
    assert entry["id"] in text
    assert "…" not in text


def test_webhooks_test_ends_at_the_deadline_on_a_trickling_receiver(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The receiver sends a header line every 0.5 s for 20 s; the command must give up at
    # SCORELEDGER_WEBHOOK_TIMEOUT_S (1 s) for the whole request, report it and exit 1.
    monkeypatch.setenv("SCORELEDGER_WEBHOOK_TIMEOUT_S", "1")
    with trickling_receiver(every_s=0.5, lines=40) as hook:
        assert run(clean_redis_url, "add", hook)[0] == 0
        began = time.monotonic()
        code, text = run(clean_redis_url, "test", hook)
        took = elapsed_s(began)
    assert code == 1, text
    assert text.startswith("failed"), text
    assert "deadline" in text
    assert took < 3.0, took


def test_loopback_is_refused_unless_allowed_and_credentials_never_listed(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCORELEDGER_WEBHOOK_ALLOW_PRIVATE", "false")
    code, text = run(clean_redis_url, "add", "http://127.0.0.1:6379/")
    assert (code, text.startswith("webhook.private_address:")) == (1, True)
    code, text = run(clean_redis_url, "add", "http://169.254.169.254/latest/meta-data")
    assert (code, text.startswith("webhook.private_address:")) == (1, True)
    hook = "https://bot:s3cret-pass@hooks.example.org/in"
    code, text = run(clean_redis_url, "add", hook)
    assert code == 0, text
    assert "s3cret-pass" not in text.split("secret:")[0]
    assert "https://***@hooks.example.org/in" in text
    code, text = run(clean_redis_url, "list")
    assert code == 0
    assert "s3cret-pass" not in text
    assert "***@hooks.example.org" in text
    code, text = run(clean_redis_url, "remove", hook)
    assert (code, "s3cret-pass" in text) == (0, False)
