"""The docs' commands run as printed: the tournament walk-through of docs/tournaments.md against
`scoreledger serve`, and the README tour's offline `score` commands.

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

PAGE = ROOT / "docs" / "tournaments.md"
README = ROOT / "README.md"


def walkthrough() -> str:
    """The bash block that follows the heading "A tournament over HTTP", as printed."""
    section = PAGE.read_text(encoding="utf-8").split("### A tournament over HTTP", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert match is not None, "no bash block under 'A tournament over HTTP'"
    return match.group(1)


@pytest.mark.redis
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


def test_the_readme_tour_score_commands_run_as_printed() -> None:
    """Step 1 of the README's tour: both `score` lines, as printed, from the repository root.
    The final standings are those of contracts/examples/penumbra-3p.expected.json (Mira 68,
    Tess 64, Oren 46); after event 40 the game is still in play (no winner yet)."""
    lines = re.findall(
        r"^\s*(\.venv/bin/scoreledger score [^#\n]*?)\s*#", README.read_text("utf-8"), re.M
    )
    assert len(lines) == 2, lines
    final, at_40 = (
        subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, check=True)
        for line in lines
    )
    assert "Winner: Mira" in final.stdout, final.stdout
    assert re.search(r"Total\s*│\s*68\s*│\s*64\s*│\s*46\s*│", final.stdout), final.stdout
    assert "Winner" not in at_40.stdout, at_40.stdout
    assert "If the game ended now" in at_40.stdout, at_40.stdout
