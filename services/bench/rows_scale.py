"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): scale rows on the current tree: projector catch-up with 1, 2 and 3 projector
processes over the same log (with a check that every game ended at its last seq, since the
landed code has no shard ownership), Redis CPU per event, projector memory per live game, and a
capacity model written from those figures; and the same appends and catch-up on one Redis node
vs a local 3-master Redis Cluster (`rows_cluster.nodes`)."""

from __future__ import annotations

import time
from pathlib import Path

from services.bench import corpus
from services.bench.layout import Loader
from services.bench.proc import cpu_of
from services.bench.rows_cluster import nodes
from services.bench.rows_projector import applied, prefill, projector, reset
from services.bench.table import Row
from services.bench.trees import Tree

TABLE_EVENTS_PER_S = 0.1
"""Assumed peak rate of one live table: an event every 10 s (a simulated game has about 120
events over one to two hours, 0.02-0.03/s; the assumption leaves 3-5x headroom)."""


REDIS_MEMORY_NOTE = (
    "Redis memory (how `maxmemory` is sized in deploy/redis.conf and "
    "deploy/cluster/redis-cluster.conf): a stored event costs Redis about 1 KiB (game stream, "
    "event id, shard feed until trimmed; 1,009 B as `used_memory` growth over 3,000 events, "
    "tests/pipeline/test_redis_memory.py, which fails above 1.5 KiB), so the shipped "
    "`maxmemory 2gb` (`noeviction`) holds about 1.5 million events beside projections, the "
    "capped inbox and the dead letters; size it as events kept x 1 KiB x 1.3, and the host "
    '1.5 x `maxmemory` for the AOF rewrite\'s fork (README, "Redis memory").'
)
"""The capacity model's Redis memory line (a fixed figure: the benchmark does not measure it)."""


def rss_of(pid: int) -> int:
    """Resident bytes of a live process (VmRSS), 0 if gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def redis_pid(url: str) -> int:
    client = Loader(url).client
    pid = int(client.info("server")["process_id"])
    client.close()
    return pid


def processes(
    tree: Tree, url: str, games: list[corpus.Game], n: int, events: int, ids: list[str]
) -> tuple[float, bool, float]:
    """(events/s wall, every game complete, Redis CPU s) with `n` projector processes."""
    reset(url)
    loader = Loader(url)
    rpid = redis_pid(url)
    r0 = cpu_of(rpid)
    started = time.perf_counter()
    services = [projector(tree, url) for _ in range(n)]
    for svc in services:
        svc.__enter__()
    try:
        while loader.behind() and time.perf_counter() - started < 300:
            time.sleep(0.02)
        wall = time.perf_counter() - started
        time.sleep(0.5)  # late writers (an unfenced second projector) land now
    finally:
        for svc in services:
            svc.__exit__(None, None, None)
    loader.close()
    return events / wall, applied(url, ids) == events, cpu_of(rpid) - r0


def scale(
    tree: Tree,
    url: str,
    games: list[corpus.Game],
    rows: list[Row],
    counts: tuple[int, ...] = (1, 2, 3),
) -> tuple[list[Row], list[str]]:
    """The scale rows (catch-up with each of `counts` projector processes, the first 1) and
    the capacity model's notes."""
    rpid = redis_pid(url)
    r0 = cpu_of(rpid)
    events, ids, _ = prefill(url, games)
    write_cpu = (cpu_of(rpid) - r0) / events
    out: list[Row] = []
    rates: dict[int, float] = {}
    redis_project = 0.0
    for n in counts:
        rate, complete, rcpu = processes(tree, url, games, n, events, ids)
        rates[n] = rate
        if n == 1:
            redis_project = rcpu / events
        out.append(
            Row(
                f"projector catch-up with {n} projector process{'es' if n > 1 else ''}",
                "events/s",
                None,
                rate,
                "-",
                None,
                note=f"new tree, {events} events of {len(games)} games, wall from start; "
                f"{'every game at its last seq' if complete else 'GAMES INCOMPLETE (lost updates)'}; "
                f"{rate / rates[1]:.2f}x one process (2 cores shared with Redis and the harness)",
            )
        )
    # memory per live game: one projector's RSS growth over the games it holds
    reset(url)
    loader = Loader(url)
    with projector(tree, url) as svc:
        time.sleep(1.5)
        assert svc.proc is not None
        idle = rss_of(svc.proc.pid)
        while loader.behind():
            time.sleep(0.05)
        per_game = max(0, rss_of(svc.proc.pid) - idle) / len(games)
    loader.close()
    out.extend(nodes(tree, url, games))  # flushes `url`: after every row that needs the log
    catch = next((r for r in rows if r.figure.startswith("projector catch-up")), None)
    per_cpu = catch.new if catch is not None and catch.new else rates[1]
    redis_per_event = write_cpu + redis_project
    redis_rate = 1 / redis_per_event if redis_per_event else float("nan")
    tables = 100_000
    need = tables * TABLE_EVENTS_PER_S
    notes = [
        "Capacity model (from this run's new-tree figures): "
        f"a projector process applies {per_cpu:,.0f} events per CPU-second; Redis spends "
        f"{write_cpu * 1e6:.0f} µs CPU per event appended (stream layout write) and "
        f"{redis_project * 1e6:.0f} µs per event projected, so one Redis node (one core) carries "
        f"about {redis_rate:,.0f} events/s end to end; a projector holds about "
        f"{per_game / 1024:,.0f} KiB per live game (RSS growth over {len(games)} games). "
        f"At {TABLE_EVENTS_PER_S} events/s per table (an event every 10 s), 100,000 concurrent "
        f"tables offer {need:,.0f} events/s: about {need / per_cpu / 0.5:.1f} projector cores at 50% "
        f"utilisation, {need / redis_rate / 0.5:.1f} Redis nodes (primaries) at 50%, and "
        f"{tables * per_game / 2**30:.1f} GiB of projector memory in all (split over the "
        "projectors by shard). Ingest and query processes are sized by request rates, not here.",
        REDIS_MEMORY_NOTE,
    ]
    return out, notes
