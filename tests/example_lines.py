"""The example games' stored lines (contracts/examples/*.jsonl, files in name order, blank
lines left out): real events of every kind the examples hold, for tests that sample them."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).parents[1] / "contracts/examples"
EXAMPLE_LINES: list[str] = [
    line
    for path in sorted(EXAMPLES.glob("*.jsonl"))
    for line in path.read_text(encoding="utf-8").splitlines()
    if line.strip()
]
