"""The tournament walk-through of docs/tournaments.md runs as printed against `scoreledger serve`.

The page's bash block under "A tournament over HTTP" is run by bash unchanged, with `U` set to
a served instance (the block's own default is `serve`'s address, 127.0.0.1:8000) and `-e`, so a
command that fails (curl `--fail-with-body` on a non-2xx, a refused connection) fails the test."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
from collections.abc import Callable

import pytest

from tests.cli.conftest import ROOT

pytestmark = pytest.mark.redis
PAGE = ROOT / "docs" / "tournaments.md"


def walkthrough() -> str:
    """The bash block that follows the heading "A tournament over HTTP", as printed."""
    section = PAGE.read_text(encoding="utf-8").split("### A tournament over HTTP", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert match is not None, "no bash block under 'A tournament over HTTP'"
    return match.group(1)


def test_the_tournament_walkthrough_runs_as_printed(serve_process: Callable[..., str]) -> None:
    url = serve_process()
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", walkthrough()],
        env={**os.environ, "U": url},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    seated = json.loads(next(line for line in lines if line.startswith('{"round":1,')))
    table_1 = seated["tables"][0]["players"]
    assert len(table_1) == 4, seated  # 7 players sit 4 + 3
    sheet = "\n".join(lines[next(i for i, x in enumerate(lines) if x.startswith("place,")) :])
    rows = {row["player_id"]: row for row in csv.DictReader(io.StringIO(sheet))}
    assert len(rows) == 7, sheet
    # Table 1 reported in seat order with scores 41, 35, 29, 23 and approved: placement points
    # 7/5/3/1; score difference = own score - the mean of the other three (41 - 29 = 12, ...).
    # Table 2 is not reported, so its players have nothing yet.
    assert [rows[p]["points"] for p in table_1] == ["7.00", "5.00", "3.00", "1.00"]
    assert [rows[p]["score_difference"] for p in table_1] == ["12.00", "4.00", "-4.00", "-12.00"]
    assert [rows[p]["place"] for p in table_1] == ["1", "2", "3", "4"]
    others = [row["points"] for p, row in rows.items() if p not in table_1]
    assert others == ["0.00", "0.00", "0.00"]
