"""Smoke test of the benchmark harness with tiny sizes: it produces the report table.
No speed is asserted (benchmarks are separate)."""

from __future__ import annotations

import shutil

import pytest
from rich.console import Console
from rich.progress import Progress

from services.bench.__main__ import Sizes, run
from services.bench.machine import header
from services.bench.report import render

TINY = Sizes(
    repeats=1,
    fold_games=2,
    append_games=2,
    projector_games=2,
    rebuild_games=3,
    e2e_games=4,
    e2e_seconds=0.5,
    peer_games=1,
    bench_requests=2_000,
    http1_games=1,
    read_seconds=1,
)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_harness_produces_the_table() -> None:
    with Progress(console=Console(quiet=True)) as progress:
        figures, notes = run(TINY, progress)
    text = render(header(), figures, notes)
    assert "| item | measure | median | min-max | unit | vs baseline | target | note |" in text
    for item in ("1", "2", "3", "4", "6", "7", "8", "9"):
        assert any(f.item == item and f.samples for f in figures), item
    doors = {f.name for f in figures if f.item == "2" and f.samples}
    assert {
        "append via HTTP, 1 event per POST",
        "append via HTTP, 100 events per POST",
        "append via the Redis inbox (1 event per entry)",
    } <= doors
    if shutil.which("wrk"):  # item 5's load generator
        assert any(f.item == "5" and f.unit == "ms" and f.samples for f in figures)
    else:
        assert any("Item 5, standings read" in n and "NOT MEASURED" in n for n in notes)
    assert "**Commit:**" in text
    assert "**Machine:**" in text
