"""Performance (docs/decisions/0012-hot-reads-and-off-loop-replays.md): rows of the live path: append -> standings visible, p99, over 100 concurrent games at
an offered rate, the tree's projector in its own process. Appends are paced on a 10 ms tick and
written in the stream layout (one round trip per tick, as the ingest's append script writes
them); a watcher process reads the projector's change notices. Visible = the notice of the
game at that seq or later has been read (the projector writes projection and notice in one
script). Latency = notice read - append sent. Its stages, from the ids' ms parts (Redis's wall
clock at the feed XADD and at the apply's notice XADD): append (sent -> in the feed), project
(in the feed -> applied: the projector's read wait, queue and write), read (applied -> the
watcher read the notice).

Start-up: the warm-up begins only once the projector is live (`ready`: one probe event per
shard appended and applied), not a fixed time after its process was started: under load a
projector takes seconds to import and take its shards (4-8 s at load average 9 on the 2-core
machine), and the appends of a fixed allowance became a backlog inside the measured window.

Fairness: the trees are measured in rounds A B B A (`ROUNDS` runs of each, `seconds / ROUNDS`
measured each, every run its own fresh projector and warm-up), pooled per tree, so a burst of
load from the rest of the machine falls on both trees alike instead of on whichever ran then."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from services.adapters.redis.keys import shard_of
from services.bench import corpus
from services.bench.layout import SHARDS, Loader
from services.bench.rows_projector import projector
from services.bench.table import Row, load
from services.bench.trees import ROOT, Tree, current

PROBES = Path(__file__).parent / "probes"
ROUNDS = 2
"""Runs per tree per rate, in the order A B B A (pooled per tree)."""
WARMUP_S = 2.0
"""Appends at the offered rate before the measured window (the projector's first sight of 100
games, its caches filling); their latencies are not counted."""
READY_TIMEOUT_S = 120.0
"""Longest wait for a started projector to apply the probe events (`ready`)."""


def tables(games: list[corpus.Game], live: int) -> Iterator[str]:
    """Events of `live` concurrent tables, round-robin; a finished table is replaced by the next
    game (clones under fresh ids, so the supply never ends)."""
    k = 0

    def fresh() -> Iterator[str]:
        nonlocal k
        game = corpus.clone(games[k % len(games)], f"live-{k}")
        k += 1
        return iter(game)

    running = [fresh() for _ in range(live)]
    while True:
        for i, table in enumerate(running):
            line = next(table, None)
            if line is None:
                running[i] = fresh()
                line = next(running[i])
            yield line


@dataclass(frozen=True)
class Live:
    """One run at an offered rate: latencies (ms) of every appended event, achieved events/s,
    projector CPU share (of one core), load average before and after."""

    latencies: list[float]
    sent: int
    achieved: float
    projector_cpu: float
    load_before: str
    load_after: str
    stages: dict[str, list[float]]
    ready_s: float = 0.0
    """Seconds from the projector's start until it applied the probe events (`ready`)."""


def run(tree: Tree, url: str, games: list[corpus.Game], rate: float, seconds: float) -> Live:
    loader = Loader(url)
    loader.flush()
    sent: dict[tuple[str, int], float] = {}
    fed: dict[tuple[str, int], float] = {}  # wall ms of the feed XADD
    wall = time.time() - time.monotonic()  # monotonic -> wall seconds (Redis ids are wall ms)
    where = Path(tempfile.mkdtemp(prefix="bench-live-"))
    stop, out = where / "stop", where / "seen.json"
    watcher_argv = [
        sys.executable,
        str(PROBES / "watch_changes.py"),
        url,
        str(SHARDS),
        str(stop),
        str(out),
    ]
    import subprocess

    before = load()
    spawned = time.monotonic()
    with projector(tree, url) as svc:
        watcher = subprocess.Popen(
            watcher_argv, env=current().env(), cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        assert watcher.stdout is not None
        watcher.stdout.readline()
        ready_s = ready(loader, games[0], time.monotonic() - spawned)
        cpu0 = svc.cpu()
        source = tables(games, 100)
        started = time.monotonic()
        done = 0
        warm = started + WARMUP_S
        while (now := time.monotonic()) - started < seconds + WARMUP_S:
            due = int((now - started) * rate) - done
            if due > 0:
                batch = [next(source) for _ in range(due)]
                stamp = time.monotonic()
                ids = loader.append(batch)
                if stamp >= warm:
                    for line in batch:
                        head = json.loads(line)
                        key = (head["game_id"], head["seq"])
                        sent[key] = stamp
                        fed[key] = float(ids[key[0]].split(b"-")[0])
                done += due
            time.sleep(max(0.0, 0.01 - (time.monotonic() - now)))
        elapsed = time.monotonic() - warm
        deadline = time.monotonic() + 30
        while loader.behind() and time.monotonic() < deadline:
            time.sleep(0.05)
        cpu = svc.cpu() - cpu0
        stop.touch()
        watcher.wait(timeout=30)
    loader.close()
    seen = json.loads(out.read_text())
    os.remove(out)
    stop.unlink()
    os.rmdir(where)
    latest: dict[str, int] = {}
    latencies = []
    stages: dict[str, list[float]] = {"append": [], "project": [], "read": []}
    for game, seq, t, notice in seen:
        applied_ms = float(notice.split("-")[0])
        for s in range(latest.get(game, 0) + 1, seq + 1):
            started_at = sent.get((game, s))
            if started_at is not None:
                latencies.append((t - started_at) * 1000)
                stages["append"].append(fed[(game, s)] - (started_at + wall) * 1000)
                stages["project"].append(applied_ms - fed[(game, s)])
                stages["read"].append((t + wall) * 1000 - applied_ms)
        latest[game] = max(latest.get(game, 0), seq)
    return Live(
        latencies,
        len(sent),
        len(sent) / elapsed,
        cpu / (elapsed + WARMUP_S),
        before,
        load(),
        stages,
        ready_s,
    )


def probes(game: corpus.Game, shards: int = SHARDS) -> list[str]:
    """The first event of `game` cloned under ids `live-probe-K`, one game on every shard (the
    ids the appends use, `live-K`, never collide with them)."""
    by_shard: dict[int, str] = {}
    k = 0
    while len(by_shard) < shards:
        game_id = f"live-probe-{k}"
        by_shard.setdefault(shard_of(game_id, shards), game_id)
        k += 1
    return [corpus.clone(game, game_id)[0] for _, game_id in sorted(by_shard.items())]


def ready(loader: Loader, game: corpus.Game, waited_s: float) -> float:
    """Append the probe events (`probes`) and wait until the projector has applied them, so it
    has started, holds its shards and folds; returns the seconds since its start (`waited_s`
    already passed). Raises RuntimeError after `READY_TIMEOUT_S`."""
    started = time.monotonic()
    loader.append(probes(game))
    while loader.behind():
        if time.monotonic() - started > READY_TIMEOUT_S:
            raise RuntimeError(f"the projector applied nothing within {READY_TIMEOUT_S:g} s")
        time.sleep(0.02)
    return waited_s + time.monotonic() - started


def pooled(runs: list[Live]) -> Live:
    """One tree's runs as one: latencies and stages joined, events sent over the runs' measured
    time, CPU share weighted by that time, the first run's load before and the last one's
    after, the slowest start-up."""
    sent = sum(r.sent for r in runs)
    spans = [r.sent / r.achieved if r.achieved else 0.0 for r in runs]  # measured seconds
    span = sum(spans)
    return Live(
        [v for r in runs for v in r.latencies],
        sent,
        sent / span if span else 0.0,
        sum(r.projector_cpu * t for r, t in zip(runs, spans, strict=True)) / span if span else 0.0,
        runs[0].load_before,
        runs[-1].load_after,
        {k: [v for r in runs for v in r.stages[k]] for k in runs[0].stages},
        max(r.ready_s for r in runs),
    )


def abba(trees: list[Tree], rounds: int) -> list[int]:
    """Indexes of `trees` in run order: forward, then backward, `rounds` times in all
    (two trees, two rounds: A B B A)."""
    order: list[int] = []
    for r in range(rounds):
        order += list(range(len(trees)))[:: 1 if r % 2 == 0 else -1]
    return order


def stage_text(stages: dict[str, list[float]]) -> str:
    """`append p50/p99 ..., project ..., read ...` in ms (ids have ms resolution)."""
    return ", ".join(f"{name} {p(v, 50):.0f}/{p(v, 99):.0f}" for name, v in stages.items() if v)


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def live_rows(
    trees: list[Tree],
    url: str,
    games: list[corpus.Game],
    rates: list[tuple[float, float, str]],
    seconds: float,
) -> list[Row]:
    """One row per (offered rate, p99 target ms, issue's figure)."""
    rows = []
    for rate, target, now in rates:
        taken: list[list[Live]] = [[] for _ in trees]
        for i in abba(trees, ROUNDS):
            taken[i].append(run(trees[i], url, games, rate, seconds / ROUNDS))
        runs = [pooled(r) for r in taken]
        p99 = [p(r.latencies, 99) if r.latencies else None for r in runs]
        detail = "; ".join(
            f"{t.label}: {r.achieved:,.0f} events/s reached, {len(r.latencies)}/{r.sent} seen, "
            f"p50 {p(r.latencies, 50) if r.latencies else float('nan'):.1f} ms, projector "
            f"{r.projector_cpu:.0%} of a core, stages p50/p99 ms {stage_text(r.stages)}, "
            f"projector live {r.ready_s:.1f} s after its start (slowest run), "
            f"load {r.load_before.split(' (')[0]} -> "
            f"{r.load_after.split(' (')[0]}"
            for t, r in zip(trees, runs, strict=True)
        )
        new = runs[-1]
        reached = new.achieved >= 0.97 * rate and len(new.latencies) == new.sent
        rows.append(
            Row(
                f"append -> standings visible, p99, 100 games, {rate:,.0f} events/s offered",
                "ms",
                p99[0],
                p99[-1],
                f"<= {target:g} ms" + (", all reached" if rate >= 1000 else ""),
                p99[-1] is not None and p99[-1] <= target and (reached or rate < 1000),
                now=now,
                note=f"{seconds:g} s measured per tree ({ROUNDS} runs of {seconds / ROUNDS:g} s in "
                f"the order A B B A, each after {WARMUP_S:g} s of warm-up at the same rate once "
                f"the projector applied a probe event per shard, "
                f"pooled), projector in its own process; {detail}",
            )
        )
    return rows
