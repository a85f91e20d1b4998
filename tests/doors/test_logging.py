"""Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): log lines without local variables or secrets, every field bounded."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from services.platform.logging import MAX_FIELD_CHARS, configure_logging


class Lines:
    """What the configured handler wrote, line by line."""

    def __init__(self) -> None:
        self.stream = io.StringIO()

    def last(self) -> str:
        return self.stream.getvalue().strip().splitlines()[-1]


@pytest.fixture
def json_logs() -> Iterator[Lines]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    configure_logging("json", "INFO")
    lines = Lines()
    ours = root.handlers[0]
    assert isinstance(ours, logging.StreamHandler)
    ours.setStream(lines.stream)
    try:
        yield lines
    finally:
        root.handlers[:], root.level = handlers, level
        structlog.reset_defaults()


def test_a_traceback_carries_no_locals(json_logs: Lines) -> None:
    def fails(batch: list[str]) -> None:
        secret_batch = batch  # a local the old renderer printed whole
        raise ValueError(f"bad batch of {len(secret_batch)}")

    try:
        fails(["LOCAL-VALUE"] * 10_000)
    except ValueError:
        structlog.get_logger("t1").exception("batch.failed")
    line = json_logs.last()
    record = json.loads(line)
    assert record["event"] == "batch.failed"
    assert "bad batch of 10000" in line
    assert "LOCAL-VALUE" not in line
    assert '"locals"' not in line
    assert len(line) < 20_000


def test_huge_fields_are_clipped_and_secrets_redacted(
    json_logs: Lines,
) -> None:
    structlog.get_logger("t2").info(
        "x" * 1_000_000, raw="r" * 10_000_000, items=list(range(100_000)), write_token="s3cr3t"
    )
    line = json_logs.last()
    record = json.loads(line)
    assert len(line) < 4 * MAX_FIELD_CHARS + 500
    assert record["raw"].startswith("r" * MAX_FIELD_CHARS)
    assert record["raw"].endswith("(10000000 characters)")
    assert record["write_token"] == "[redacted]"
    assert "s3cr3t" not in line


def test_stdlib_records_are_bounded_too(json_logs: Lines) -> None:
    logging.getLogger("scoreledger.test.stdlib").warning("%s", "u" * 1_000_000)
    line = json_logs.last()
    assert len(line) < 2 * MAX_FIELD_CHARS + 500
