"""`scoreledger --help` and `score` start without the network and web stacks (docs/decisions/0012-hot-reads-and-off-loop-replays.md: "the CLI
imports lazily"; the import of FastAPI, redis and friends was 2.7 s CPU before any scoring)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path("contracts/examples/trickerion-4p-dark-alley-academy.jsonl")
HEAVY = ("fastapi", "starlette", "uvicorn", "redis", "httpx", "faststream", "structlog", "asyncio")
PROBE = """
import sys
from services.cli.main import app
sys.argv = ["scoreledger", *sys.argv[1:]]
try:
    app()
except SystemExit:
    pass
heavy = {heavy!r}
print("LOADED", ",".join(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["score", str(EXAMPLE)], ["score", str(EXAMPLE), "--json"]]
)
def test_the_command_loads_no_network_or_web_module(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    loaded = [line for line in done.stderr.splitlines() if line.startswith("LOADED")]
    assert loaded == ["LOADED "], done.stderr[-2000:]
    assert done.stdout  # the command did its work (help text or standings)
