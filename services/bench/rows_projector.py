"""Performance (docs/decisions/0012-hot-reads-and-off-loop-replays.md): rows of the projector, as deployed (`python -m services.cli.projector`, its own
process): catch-up from checkpoint 0 over a prefilled log in events per CPU-second, and a real
rebuild of a 1,000,000-event log (built by writing the stream layout directly, then timed)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import redis

from services.bench import corpus, proc
from services.bench.layout import SHARDS, Loader, projection, sync_client
from services.bench.table import Row, compared
from services.bench.trees import Tree

KEEP = (b"sl:game:", b"sl:feed:", b"sl:ids:", b"sl:games:")
"""The log itself; everything else (projections, checkpoints, leases, ...) is derived."""


def projector_env(tree: Tree, url: str) -> dict[str, str]:
    """The projector's environment on `url` (16 shards, warnings only), with the bytecode an
    install compiles (the Dockerfile's UV_COMPILE_BYTECODE=1; `score_example` does the same):
    PYTHONDONTWRITEBYTECODE, when this shell sets it, would compile every module from source
    at each start (about 1 s of the rebuild's wall, none of its work)."""
    env = tree.env(
        SCORELEDGER_REDIS_URL=url, SCORELEDGER_SHARDS=str(SHARDS), SCORELEDGER_LOG_LEVEL="WARNING"
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def projector(tree: Tree, url: str) -> proc.Service:
    """The tree's projector process on `url` (`projector_env`)."""
    return proc.Service(tree.projector(), projector_env(tree, url), tree.root)


def compiled(tree: Tree, url: str) -> None:
    """Start the tree's projector once on an empty database of `url`'s server (db 15) and stop
    it once started, so the bytecode caches of every module it loads are written, as an install
    has them, before a timed run (`url`'s own database is left alone)."""
    other = urlsplit(url)._replace(path="/15").geturl()
    with projector(tree, other) as svc:
        svc.settled()


def reset(url: str) -> None:
    """Delete every derived key, keeping the log: a rebuild starts from checkpoint 0."""
    client = sync_client(url)
    doomed = [k for k in client.scan_iter(count=5000) if not k.startswith(KEEP)]
    for i in range(0, len(doomed), 5000):
        client.delete(*doomed[i : i + 5000])
    client.close()


def applied(url: str, game_ids: list[str]) -> int:
    """Events projected so far: the sum of the projections' `seq` fields."""
    client = sync_client(url)
    total = 0
    for i in range(0, len(game_ids), 2000):
        pipe = client.pipeline(transaction=False)
        for game_id in game_ids[i : i + 2000]:
            pipe.hget(projection(game_id), "seq")
        total += sum(int(v) for v in pipe.execute() if v is not None)
    client.close()
    return total


def startup_cpu(tree: Tree, url: str) -> float:
    """CPU seconds the projector spends starting on an empty store (imports, connecting),
    read once its CPU has not grown for 1 s."""
    client = redis.Redis.from_url(url)
    client.flushall()
    client.close()
    with projector(tree, url) as svc:
        return svc.settled()


@dataclass(frozen=True)
class CatchUp:
    """One timed catch-up: `events`, `wall_s` from process start, `cpu_s` of the process
    less its start-up CPU, `done` False when `timeout` ended it (then `events` = applied)."""

    events: int
    wall_s: float
    cpu_s: float
    done: bool


def catch_up(
    tree: Tree, url: str, events: int, ids: list[str], base_cpu: float, timeout: float
) -> CatchUp:
    """Start the projector on a prefilled log (derived keys reset) and wait until every shard's
    checkpoint is at its feed's end."""
    reset(url)
    loader = Loader(url)
    started = time.perf_counter()
    with projector(tree, url) as svc:
        while loader.behind():
            if time.perf_counter() - started > timeout:
                cpu = svc.cpu() - base_cpu
                wall = time.perf_counter() - started
                loader.close()
                return CatchUp(applied(url, ids), wall, cpu, False)
            time.sleep(0.02)
        wall = time.perf_counter() - started
        cpu = svc.cpu() - base_cpu
    loader.close()
    return CatchUp(events, wall, cpu, True)


def prefill(url: str, games: list[corpus.Game]) -> tuple[int, list[str], float]:
    """Flush and write the log; (events, game ids, seconds it took)."""
    loader = Loader(url)
    loader.flush()
    started = time.perf_counter()
    n = loader.load(games)
    loader.close()
    ids = [g[0].split('"game_id":"', 1)[1].split('"', 1)[0] for g in games]
    return n, ids, time.perf_counter() - started


def catch_up_row(trees: list[Tree], url: str, games: list[corpus.Game], repeats: int) -> Row:
    """Projector catch-up, events per CPU-second of the projector process, best of `repeats`."""
    n, ids, _ = prefill(url, games)
    rates: list[float] = []
    walls: list[float] = []
    for tree in trees:
        compiled(tree, url)  # else the start-up CPU subtracted would hold a compile the runs lack
        base = startup_cpu(tree, url)
        prefill(url, games)
        runs = [catch_up(tree, url, n, ids, base, 300) for _ in range(repeats)]
        rates.append(max(r.events / max(r.cpu_s, 1e-9) for r in runs))
        walls.append(max(r.events / r.wall_s for r in runs))
    return compared(
        "projector catch-up, one process",
        "events/CPU-s",
        rates,
        ">= 60k events/CPU-s",
        at_least=60_000,
        now="5.6k events/s",
        note=f"{n} events of {len(games)} simulated games, from checkpoint 0, `python -m "
        f"services.cli.projector` (start-up CPU subtracted), best of {repeats}; wall from process "
        f"start: {walls[0]:,.0f} -> {walls[-1]:,.0f} events/s",
    )


def rebuild_row(
    trees: list[Tree], url: str, games: list[corpus.Game], target_events: int, timeout: float
) -> Row:
    """A real rebuild of a log of at least `target_events` (clones of `games`), wall seconds."""
    log = corpus.log_of(games, target_events)
    n, ids, load_s = prefill(url, log)
    runs = []
    for tree in trees:
        compiled(tree, url)
        runs.append(catch_up(tree, url, n, ids, 0.0, timeout))
    values = [r.wall_s if r.done else None for r in runs]
    parts = []
    for tree, r in zip(trees, runs, strict=True):
        if r.done:
            parts.append(f"{tree.label} {r.wall_s:.1f} s wall, {r.cpu_s:.1f} s CPU")
        else:
            parts.append(
                f"{tree.label} NOT FINISHED: {r.events:,} of {n:,} applied in {r.wall_s:.0f} s "
                f"({r.events / r.wall_s:,.0f} events/s)"
            )
    return compared(
        f"rebuild of a real {n:,}-event log",
        "s",
        values,
        "<= 30 s in one process",
        at_most=30,
        now="204 s extrapolated",
        note=f"{len(log):,} games (clones of {len(games)} simulated ones under new ids), written "
        f"straight into the stream layout in {load_s:.0f} s, then the projector from checkpoint "
        f"0 to every checkpoint at its feed's end; {'; '.join(parts)}",
    )
