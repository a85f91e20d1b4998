"""The live rows measure the trees in rounds A B B A and pool each tree's runs (a burst of load
from the rest of the machine falls on both trees alike), and start once the projector applied a
probe event on every shard. No speed is asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.adapters.redis.keys import shard_of
from services.bench import rows_live
from services.bench.rows_live import Live, abba, pooled, probes, ready
from services.bench.trees import Tree


def test_trees_run_forward_then_backward() -> None:
    trees = [Tree("today", Path("a"), "a"), Tree("new", Path("b"), "b")]
    assert abba(trees, 2) == [0, 1, 1, 0]
    assert abba(trees, 3) == [0, 1, 1, 0, 0, 1]
    assert abba(trees[:1], 2) == [0, 0]


def test_runs_of_one_tree_are_pooled() -> None:
    one = Live([1.0, 2.0], 2, 100.0, 0.2, "1.00 / x", "2.00 / x", {"append": [0.5, 0.5]}, 4.0)
    two = Live([3.0, 4.0, 5.0, 6.0], 4, 400.0, 0.5, "2.00 / x", "3.00 / x", {"append": [1.0]}, 9.5)
    both = pooled([one, two])
    assert both.latencies == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert both.sent == 6
    assert both.achieved == pytest.approx(200.0)  # 6 events over 0.02 s + 0.01 s
    assert both.projector_cpu == pytest.approx(0.3)  # weighted by those seconds
    assert (both.load_before, both.load_after) == ("1.00 / x", "3.00 / x")
    assert both.stages == {"append": [0.5, 0.5, 1.0]}
    assert both.ready_s == 9.5  # the slowest start-up


def test_one_probe_event_per_shard_under_ids_the_tables_never_use() -> None:
    game = [
        '{"game_id":"g7","seq":1,"type":"x.game_started"}',
        '{"game_id":"g7","seq":2,"type":"x.turn"}',
    ]
    lines = probes(game, shards=4)
    heads = [json.loads(line) for line in lines]
    assert sorted(shard_of(h["game_id"], 4) for h in heads) == [0, 1, 2, 3]
    assert all(h["game_id"].startswith("live-probe-") for h in heads)  # tables are `live-K`
    assert [(h["seq"], h["type"]) for h in heads] == [(1, "x.game_started")] * 4


class FakeLoader:
    """A loader whose projector catches up after `polls` looks at the checkpoints."""

    def __init__(self, polls: int) -> None:
        self.polls = polls
        self.appended: list[str] = []
        self.looks = 0

    def append(self, batch: list[str]) -> dict[str, bytes]:
        self.appended += batch
        return {}

    def behind(self) -> int:
        self.looks += 1
        return 0 if self.looks > self.polls else 16


GAME = ['{"game_id":"g7","seq":1,"type":"x.game_started"}']


def test_the_warm_up_waits_until_the_projector_applied_the_probes() -> None:
    loader = FakeLoader(polls=3)
    waited = ready(loader, GAME, 1.5)  # type: ignore[arg-type]
    assert loader.looks == 4  # behind three times, then caught up
    assert len(loader.appended) == 16  # one probe per shard (layout.SHARDS)
    assert waited >= 1.5 + 3 * 0.02  # the time already passed, then three polls 20 ms apart


def test_a_projector_that_never_applies_them_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rows_live, "READY_TIMEOUT_S", 0.05)
    with pytest.raises(RuntimeError, match=r"applied nothing within 0\.05 s"):
        ready(FakeLoader(polls=10**9), GAME, 0.0)  # type: ignore[arg-type]
