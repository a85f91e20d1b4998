"""The live rows measure the trees in rounds A B B A and pool each tree's runs (a burst of load
from the rest of the machine falls on both trees alike). No speed is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bench.rows_live import Live, abba, pooled
from services.bench.trees import Tree


def test_trees_run_forward_then_backward() -> None:
    trees = [Tree("today", Path("a"), "a"), Tree("new", Path("b"), "b")]
    assert abba(trees, 2) == [0, 1, 1, 0]
    assert abba(trees, 3) == [0, 1, 1, 0, 0, 1]
    assert abba(trees[:1], 2) == [0, 0]


def test_runs_of_one_tree_are_pooled() -> None:
    one = Live([1.0, 2.0], 2, 100.0, 0.2, "1.00 / x", "2.00 / x", {"append": [0.5, 0.5]})
    two = Live([3.0, 4.0, 5.0, 6.0], 4, 400.0, 0.5, "2.00 / x", "3.00 / x", {"append": [1.0]})
    both = pooled([one, two])
    assert both.latencies == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert both.sent == 6
    assert both.achieved == pytest.approx(200.0)  # 6 events over 0.02 s + 0.01 s
    assert both.projector_cpu == pytest.approx(0.3)  # weighted by those seconds
    assert (both.load_before, both.load_after) == ("1.00 / x", "3.00 / x")
    assert both.stages == {"append": [0.5, 0.5, 1.0]}
