"""Performance (docs/decisions/0012-hot-reads-and-off-loop-replays.md): row: SSE delivery to 1,000 subscribers of one game's `GET /games/{id}/live`, p99.

The tree's query-only server and its projector run in their own processes; the subscribers are
raw-socket asyncio clients in 4 further processes (services/bench/probes/sse_clients.py; their
CPU is reported, so it is visible that they are not the bottleneck). Each change is one event
appended in the stream layout; latency = frame received - event appended (it includes the
projector's own step)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from services.bench import corpus
from services.bench.layout import Loader
from services.bench.rows_http import query
from services.bench.rows_projector import projector
from services.bench.table import Row
from services.bench.trees import ROOT, Tree, current

PROBES = Path(__file__).parent / "probes"
GAME = "bench-sse"


def run(
    tree: Tree, url: str, game: corpus.Game, subscribers: int, changes: int, interval: float
) -> tuple[list[float], int, float, float]:
    """(latencies ms, missed deliveries, clients' CPU seconds, seconds to connect all)."""
    loader = Loader(url)
    loader.flush()
    head = 10
    loader.load([game[:head]])
    where = Path(tempfile.mkdtemp(prefix="bench-sse-"))
    procs = 4
    # The subscribers stand for as many phones but come from one address, which the live
    # streams' per-client bound (512 by default) would count as one client.
    svc, base = query(tree, url, SCORELEDGER_LIVE_PER_CLIENT=str(subscribers))
    port = base.rsplit(":", 1)[1]
    with projector(tree, url), svc:
        while loader.behind():
            time.sleep(0.05)
        last = head + changes
        clients = []
        t0 = time.monotonic()
        for i in range(procs):
            argv = [sys.executable, str(PROBES / "sse_clients.py"), "127.0.0.1", port]
            argv += [
                f"/games/{GAME}/live",
                str(subscribers // procs),
                str(last),
                str(where / f"{i}.json"),
            ]
            clients.append(
                subprocess.Popen(
                    argv, env=current().env(), cwd=ROOT, stdout=subprocess.PIPE, text=True
                )
            )
        for c in clients:
            assert c.stdout is not None
            if c.stdout.readline().strip() != "ready":
                raise RuntimeError("an SSE client process did not connect")
        connect_s = time.monotonic() - t0
        time.sleep(1.0)
        appended: dict[int, float] = {}
        for line in game[head:last]:
            appended[json.loads(line)["seq"]] = time.monotonic()
            loader.append([line])
            time.sleep(interval)
        cpu = 0.0
        for c in clients:
            _, _, usage = os.wait4(c.pid, 0)
            c.returncode = 0
            cpu += usage.ru_utime + usage.ru_stime
    loader.close()
    latencies, missed = _delivered(where, procs, subscribers // procs, appended)
    os.rmdir(where)
    return latencies, missed, cpu, connect_s


def _delivered(
    where: Path, procs: int, per_proc: int, appended: dict[int, float]
) -> tuple[list[float], int]:
    """(latencies ms, missed deliveries) from the client processes' frame files in `where`
    (each removed): per connection and appended seq, the first frame at or past it."""
    latencies: list[float] = []
    missed = 0
    for i in range(procs):
        path = where / f"{i}.json"
        frames = json.loads(path.read_text()) if path.exists() else []
        path.unlink(missing_ok=True)
        by_conn: dict[int, list[tuple[int, float]]] = {}
        for k, seq, t in frames:
            by_conn.setdefault(int(k), []).append((int(seq), t))
        for k in range(per_proc):
            got = by_conn.get(k, [])
            for seq, t_app in appended.items():
                first = next((t for s, t in got if s >= seq and t >= t_app), None)
                if first is None:
                    missed += 1
                else:
                    latencies.append((first - t_app) * 1000)
    return latencies, missed


def sse_row(
    trees: list[Tree], url: str, games: list[corpus.Game], subscribers: int, changes: int
) -> Row:
    game = corpus.clone(corpus.trickerion(games)[0], GAME)
    changes = min(changes, len(game) - 11)
    got = [run(t, url, game, subscribers, changes, 0.25) for t in trees]
    p99 = []
    details = []
    for tree, (lat, missed, cpu, connect) in zip(trees, got, strict=True):
        lat.sort()
        p99.append(lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None)
        p50 = lat[len(lat) // 2] if lat else float("nan")
        details.append(
            f"{tree.label}: p50 {p50:.0f} ms, {missed} missed, clients' CPU {cpu:.1f} s over "
            f"{changes * 0.25 + 1:.0f} s, all connected in {connect:.1f} s"
        )
    return Row(
        f"SSE delivery to {subscribers:,} subscribers, p99",
        "ms",
        p99[0],
        p99[-1],
        "<= 250 ms",
        p99[-1] is not None and p99[-1] <= 250 and got[-1][1] == 0,
        now="1.3-3.5 s",
        note=f"{changes} changes 250 ms apart; load generator: 4 processes of raw asyncio sockets; "
        f"{'; '.join(details)}",
    )
