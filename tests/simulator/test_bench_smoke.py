"""Smoke test of the benchmark harness at tiny sizes: every row runs and the report has the
benchmark table (docs/benchmarks.md). The current tree alone fills both columns (no git history needed). No speed is
asserted (benchmarks are separate)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.bench.__main__ import QUICK, measure
from services.bench.table import Report, render
from services.bench.trees import current

TINY = replace(
    QUICK,
    tables=8,
    fold_games=3,
    long_game=400,
    standings_games=2,
    projector_games=4,
    rebuild_events=1_500,
    rebuild_timeout_s=60,
    live_seconds=1,
    read_seconds=1,
    read_games=3,
    series_events=300,
    sse_subscribers=8,
    sse_changes=2,
    peer_games=1,
    scale_games=4,
    scale_processes=(1, 2),
    roles_games=3,
    kernel_lengths=(200,),
    seating_players=(12,),
)


@pytest.mark.slow
@pytest.mark.redis  # the harness starts redis-server and reaches PostgreSQL (the peer row)
@pytest.mark.postgres
@pytest.mark.timeout(600)
def test_harness_measures_every_row_on_both_columns() -> None:
    report = Report()
    measure(TINY, [current()], report)  # one tree: both columns from one measurement
    failed = [n for n in report.notes if "NOT MEASURED" in n and "Cluster" not in n]
    assert failed == []
    figures = [r.figure for r in report.rows]
    for start in (
        "offline fold",
        "per-event fold cost",
        "standings kept per event",
        "projector catch-up",
        "append -> standings visible",
        "standings GET",
        "SSE delivery",
        "rebuild of a real",
        "`/series`",
        "`/healthz` p99",
        "`scoreledger score`",
        "service CPU per event, all roles",
        "ours vs eventsourcing",
    ):
        assert any(f.startswith(start) for f in figures), start
    for row in report.rows:
        assert row.today is not None, row.figure
        assert row.new is not None, row.figure
    assert sum(r.figure.startswith("append -> standings visible") for r in report.rows) == 2
    assert [r.figure for r in report.extra if r.figure.startswith("projector catch-up")] == [
        "projector catch-up with 1 projector process",
        "projector catch-up with 2 projector processes",
    ]
    assert [r.figure for r in report.extra if r.figure.startswith("1 vs 3")] == [
        "1 vs 3 Redis Cluster nodes: appends (RedisEventLog.append)",
        "1 vs 3 Redis Cluster nodes: projector catch-up (1 process)",
    ]
    assert all(r.new for r in report.extra if r.figure.startswith("1 vs 3"))
    seating = [r for r in report.extra if r.figure.startswith("repeat meetings, 12 players")]
    assert [r.figure for r in seating] == [
        f"repeat meetings, 12 players x {n} rounds" for n in (5, 6, 7)
    ]
    assert all(r.met for r in seating)
    text = render(report)
    assert (
        '| figure | issue\'s "now" | today | new | unit | new / today | target | met | note |'
        in text
    )
    assert "Capacity model" in text
