"""The benchmark harness's shared pieces: the rows' verdict (services/bench/table.py `compared`:
today is the first tree's figure, new the last's, the bound decides met / MISSED) and the
best-of-N CPU timing (services/bench/proc.py `best_cpu`) and the instructions row's reading of
callgrind's dumps (services/bench/rows_instructions.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bench import rows_instructions
from services.bench.proc import best_cpu, descendants
from services.bench.table import compared


def test_first_and_last_tree_and_at_most() -> None:
    row = compared("f", "s", [2.0, 9.0, 0.5], "<= 0.5 s", at_most=0.5, now="3 s", note="n")
    assert (row.today, row.new, row.met, row.now, row.note) == (2.0, 0.5, True, "3 s", "n")
    assert row.ratio == "0.25x"
    assert compared("f", "s", [2.0, 0.51], "<= 0.5 s", at_most=0.5).met is False


def test_at_least() -> None:
    assert compared("f", "x", [1.0, 4.0], ">= 4x", at_least=4).met is True
    assert compared("f", "x", [1.0, 3.9], ">= 4x", at_least=4).met is False


def test_not_measured_is_missed() -> None:
    row = compared("f", "s", [1.0, None], "<= 30 s", at_most=30)
    assert (row.new, row.met, row.ratio) == (None, False, "-")


def test_a_bound_is_required() -> None:
    with pytest.raises(ValueError, match="at_most or at_least"):
        compared("f", "s", [1.0], "?")


def test_best_cpu_runs_the_work_each_time_and_keeps_the_least() -> None:
    sizes = iter([200_000, 1, 200_000])
    runs: list[int] = []

    def work() -> None:
        n = next(sizes)
        runs.append(n)
        sum(range(n))

    single = best_cpu(lambda: sum(range(1)), 1)
    got = best_cpu(work, 3)
    assert runs == [200_000, 1, 200_000]
    assert 0 <= got <= single + 0.001  # the one-element run, not a 200k-element one


def test_callgrind_totals_sum_every_dump_of_the_run(tmp_path: Path) -> None:
    out = tmp_path / "callgrind.out"
    out.write_text("events: Ir\nsummary: 0\ntotals: 7\n")  # the exit's dump, counting off
    (tmp_path / "callgrind.out.1").write_text("events: Ir\ntotals: 1234\nfn=x\n0 1234\n")
    (tmp_path / "other.out").write_text("totals: 99\n")  # another run's file: not read
    assert rows_instructions._totals(out) == 1241


def test_catch_up_instructions_are_the_difference_per_event_of_two_logs() -> None:
    # 1,000 events in 9M instructions, 3,000 in 21M: start-up (3M) cancels, 6k an event
    assert rows_instructions.per_event((1_000, 9_000_000), (3_000, 21_000_000)) == 6_000
    with pytest.raises(ValueError, match="more events"):
        rows_instructions.per_event((3_000, 21_000_000), (3_000, 22_000_000))


BURNER = """
import os, subprocess, sys, time
if sys.argv[1:] == ["burn"]:  # the grandchild: busy for 0.6 s, then says so and idles
    end = time.monotonic() + 0.6
    while time.monotonic() < end:
        pass
    open(sys.argv[0] + ".done", "w").close()
    parent = os.getppid()
    while os.getppid() == parent:  # idle until the child ends
        time.sleep(0.05)
    sys.exit()
subprocess.Popen([sys.executable, sys.argv[0], "burn"])
time.sleep(60)
"""


def test_settled_waits_for_a_descendant_to_stop_using_cpu(tmp_path: Path) -> None:
    """A service counts as settled only once its workers (children of its children) are idle
    too: a `serve`'s replay workers warm up after `/healthz` answers (rows_peer `ours`)."""
    import sys
    import time

    from services.bench.proc import Service

    script = tmp_path / "burner.py"
    script.write_text(BURNER)
    with Service([sys.executable, str(script)], {}, tmp_path) as svc:
        assert svc.proc is not None
        deadline = time.monotonic() + 30
        while len(descendants(svc.proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(descendants(svc.proc.pid)) >= 2  # the child and its grandchild
        svc.settled(quiet_s=0.3, limit_s=30)
        assert (tmp_path / "burner.py.done").exists()
        assert svc.tree_cpu() >= 0.1  # the grandchild's CPU is counted
