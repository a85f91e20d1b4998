"""Performance (the "service CPU per event, all roles" row of docs/benchmarks.md): `scoreledger serve` with all its
default roles in one process (ingest, inbox, projector, query), 100 simulated games (seed 3)
posted over HTTP in batches of 50, one game at a time, until every game's standings show its
last seq; the service process's CPU per event against `json.loads` of the same lines, both
measured in this run."""

from __future__ import annotations

import json

from services.bench import corpus, proc, rows_peer
from services.bench.table import Row, compared
from services.bench.trees import Tree

SEED = 3


def loads_us(games: list[corpus.Game], repeats: int = 5) -> float:
    """µs of CPU per line of `json.loads` over every line of `games`, least of `repeats`."""
    lines = [line for game in games for line in game]

    def decode_all() -> None:
        for line in lines:
            json.loads(line)

    return proc.best_cpu(decode_all, repeats) * 1e6 / len(lines)


def all_roles_row(trees: list[Tree], url: str, tables: int = 100, repeats: int = 3) -> Row:
    """The row: `tables` simulated games; the least service CPU per event of `repeats`
    interleaved runs per tree (a shared machine only ever adds to it), over `json.loads` per
    line measured in this process before and after (the lesser)."""
    games = corpus.accepted(trees, corpus.simulate(trees[0], tables, SEED))
    before = loads_us(games)
    cpu: dict[str, list[float]] = {t.label: [] for t in trees}
    for _ in range(repeats):
        for tree in trees:
            _, us = rows_peer.ours(tree, url, games, roles=())
            cpu[tree.label].append(us)
    loads = min(before, loads_us(games))
    ratios = [min(cpu[t.label]) / loads for t in trees]
    detail = "; ".join(
        f"{t.label} {min(cpu[t.label]):.0f} µs (runs "
        + "/".join(f"{x:.0f}" for x in cpu[t.label])
        + ")"
        for t in trees
    )
    return compared(
        "service CPU per event, all roles in one process",
        "x json.loads",
        ratios,
        "<= 12x json.loads",
        at_most=12,
        now="37.9x",
        note=f"`scoreledger serve` (ingest, inbox, projector, query), {len(games)} simulated "
        f"games (seed {SEED}, {corpus.count(games):,} events) posted over HTTP in batches of "
        f"{rows_peer.BATCH}, one game at a time, until every game's standings show its last "
        f"seq; least service CPU per event of {repeats}: {detail}; json.loads "
        f"{loads:.2f} µs per line in the harness",
    )
