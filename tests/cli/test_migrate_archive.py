"""`scoreledger migrate-archive`: the archive's schema brought up to date, then exit."""

from __future__ import annotations

import psycopg
import pytest
from typer.testing import CliRunner

from services.archive.adapters.postgres_migrations import MIGRATIONS
from services.cli.main import app


@pytest.mark.postgres
def test_it_migrates_and_is_idempotent(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORELEDGER_ARCHIVE_URL", postgres_url)
    for _ in range(2):
        result = CliRunner().invoke(app, ["migrate-archive"])
        assert result.exit_code == 0, result.output
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT version FROM scoreledger_migrations").fetchall()
    assert [r[0] for r in rows] == [v for v, _ in MIGRATIONS]


def test_it_needs_an_archive_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCORELEDGER_ARCHIVE_URL", raising=False)
    assert CliRunner().invoke(app, ["migrate-archive"]).exit_code == 78


def test_an_unreachable_archive_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORELEDGER_ARCHIVE_URL", "postgresql://nobody@127.0.0.1:1/x")
    assert CliRunner().invoke(app, ["migrate-archive"]).exit_code == 1
