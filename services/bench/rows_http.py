"""Performance (docs/decisions/0012-hot-reads-and-off-loop-replays.md): rows through HTTP against `scoreledger serve` with only the query role (its own
process): standings GET at saturation with wrk against a raw ASGI route doing the same Redis
call, and `/series` of a long game with `/healthz` p99 polled meanwhile."""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from services.bench import corpus, proc
from services.bench.layout import Loader
from services.bench.redis_server import free_port
from services.bench.rows_projector import catch_up, prefill
from services.bench.table import Row, compared
from services.bench.trees import ROOT, Tree, current

PROBES = Path(__file__).parent / "probes"
WRK_LUA = """
local paths = {%s}
local i = 0
request = function()
  i = i %% #paths + 1
  return wrk.format("GET", paths[i])
end
"""


def query(tree: Tree, url: str, **settings: str) -> tuple[proc.Service, str]:
    """The tree's query-only server (`scoreledger serve --no-ingest --no-projector --no-inbox`),
    `settings` added to its environment (`SCORELEDGER_*`)."""
    port = free_port()
    argv = tree.cli(
        "serve", "--no-ingest", "--no-projector", "--no-inbox",
        "--host", "127.0.0.1", "--port", str(port), "--redis-url", url,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    return proc.Service(argv, tree.env(**settings), tree.root, base + "/healthz"), base


def raw(url: str) -> tuple[proc.Service, str]:
    """The raw ASGI reference route (services/bench/rawasgi.py) under uvicorn, one process."""
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", "services.bench.rawasgi:app", "--port", str(port)]
    argv += ["--log-level", "warning", "--no-access-log"]
    tree = current()
    base = f"http://127.0.0.1:{port}"
    return proc.Service(argv, tree.env(BENCH_REDIS_URL=url), ROOT, None), base


def wrk(
    base: str, paths: list[str], seconds: float, connections: int = 32
) -> tuple[float, float, float]:
    """(requests/s, p99 ms, wrk's CPU seconds) of wrk at saturation over `paths` round-robin."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_LUA % ",".join(f'"{p}"' for p in paths))
    argv = ["wrk", "-t", "1", "-c", str(connections), "-d", f"{seconds:g}s", "--latency"]
    got = proc.run([*argv, "-s", script.name, base], {"PATH": "/usr/bin:/bin"}, ROOT, seconds + 60)
    Path(script.name).unlink()
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", got.stdout).group(1))  # type: ignore[union-attr]
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", got.stdout)
    ms = (
        float(p99.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
        if p99
        else float("nan")
    )
    if " Non-2xx" in got.stdout:
        raise RuntimeError(f"wrk saw errors: {got.stdout[-400:]}")
    return rate, ms, got.cpu_s


def _wait(base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(base + "/", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)


def standings_row(trees: list[Tree], url: str, games: list[corpus.Game], seconds: float) -> Row:
    """Served req/s of each tree's query process vs the raw ASGI route, same data, same run."""
    n, ids, _ = prefill(url, games)
    paths = [f"/games/{g}/standings" for g in ids]
    ratios, served, details = [], [], []
    for tree in trees:
        catch_up(tree, url, n, ids, 0.0, 300)  # this tree's own projections
        with query(tree, url)[0] as svc:
            base = f"http://127.0.0.1:{svc.argv[svc.argv.index('--port') + 1]}"
            cpu0 = svc.cpu()
            rate, p99, wrk_cpu = wrk(base, paths, seconds)
            server_cpu = svc.cpu() - cpu0
        raw_svc, raw_base = raw(url)
        with raw_svc:
            _wait(raw_base)
            raw_cpu0 = raw_svc.cpu()
            raw_rate, raw_p99, _ = wrk(raw_base, paths, seconds)
            raw_cpu = raw_svc.cpu() - raw_cpu0
        ratios.append(rate / raw_rate)
        served.append(rate)
        details.append(
            f"{tree.label} {rate:,.0f} req/s (p99 {p99:.1f} ms, {server_cpu / (rate * seconds) * 1e6:.0f} "
            f"µs server CPU/req) vs raw {raw_rate:,.0f} (p99 {raw_p99:.1f} ms, "
            f"{raw_cpu / (raw_rate * seconds) * 1e6:.0f} µs); wrk used {wrk_cpu / seconds:.0%} of a core"
        )
    return compared(
        "standings GET, one query process, wrk",
        "x raw ASGI",
        ratios,
        ">= 0.8x raw ASGI, same run",
        at_least=0.8,
        now="1.4k req/s",
        note=f"{len(ids)} games round-robin, wrk 1 thread 32 connections {seconds:g} s at "
        f"saturation; {'; '.join(details)}",
    )


SERIES_FIRSTS = 5
"""Uncached `/series` requests per tree (one per clone of the long game): the row is their
median, one request alone swings 2-3x on a shared 2-core machine."""

IDLE_POLL_S = 2.0
"""How long `/healthz` is also polled with no request running (the machine's own tail)."""


@contextmanager
def _polled(base: str) -> Iterator[list[float]]:
    """`with _polled(base) as ms:` `/healthz` latencies (ms, sorted) of a stdlib poller in its
    own process, one request every 10 ms, over the block (filled in when it ends)."""
    latencies: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-health-") as where:
        stop, out = Path(where) / "stop", Path(where) / "health.json"
        poller = subprocess.Popen(
            [sys.executable, str(PROBES / "poll_healthz.py"), base, str(stop), str(out)],
            env=current().env(), cwd=ROOT,
        )  # fmt: skip
        time.sleep(0.5)
        try:
            yield latencies
        finally:
            stop.touch()
            poller.wait(timeout=60)
        latencies += sorted(json.loads(out.read_text()))


def _p99(ms: list[float]) -> float:
    return ms[min(len(ms) - 1, int(len(ms) * 0.99))]


def series_row(
    trees: list[Tree], url: str, games: list[corpus.Game], length: int
) -> tuple[Row, Row]:
    """`GET /games/{id}/series` of a `length`-event game, first request (uncached): the median
    over `SERIES_FIRSTS` clones of it, then one repeated (cached) request; `/healthz` polled
    every 10 ms from another process meanwhile, and for `IDLE_POLL_S` with nothing running."""
    game = corpus.pad(corpus.trickerion(games)[0], length)
    clones = [corpus.clone(game, f"bench-series-{k}") for k in range(SERIES_FIRSTS)]
    warm = corpus.clone(corpus.trickerion(games)[0], "bench-series-warm")
    loader = Loader(url)
    loader.flush()
    loader.load([*clones, warm])
    loader.close()
    firsts, p99s, details = [], [], []
    health_notes: list[str] = []
    for tree in trees:
        svc, base = query(tree, url)
        times = []
        with svc, httpx.Client(base_url=base, timeout=120) as http:
            # A warmed process: one replay of a short game first (a worker pool's start-up
            # is the process's cost, not the long game's replay).
            http.get("/games/bench-series-warm/series").raise_for_status()
            with _polled(base) as idle:
                time.sleep(IDLE_POLL_S)
            with _polled(base) as health:
                for k in [*range(SERIES_FIRSTS), 0]:  # each clone once, then one again
                    t0 = time.perf_counter()
                    reply = http.get(f"/games/bench-series-{k}/series")
                    times.append(time.perf_counter() - t0)
                    if reply.status_code != 200:
                        raise RuntimeError(f"/series: {reply.status_code} {reply.text[:200]}")
        first = sorted(times[:-1])
        firsts.append(statistics.median(first))
        p99s.append(_p99(health))
        health_notes.append(
            f"{tree.label} p50 {health[len(health) // 2]:.1f} ms, max {health[-1]:.0f} ms over "
            f"{len(health)} polls (with nothing running: p99 {_p99(idle):.1f} ms, max "
            f"{idle[-1]:.0f} ms over {len(idle)})"
        )
        details.append(
            f"{tree.label} first {firsts[-1]:.2f} s (median; {first[0]:.2f}-{first[-1]:.2f}), "
            f"again {times[-1]:.2f} s"
        )
    series = compared(
        f"`/series` of a {length:,}-event game",
        "s",
        firsts,
        "<= 0.2 s",
        at_most=0.2,
        now="16.9 s",
        note="query-only `scoreledger serve` warmed by one `/series` of a short game, then the "
        f"first (uncached) request of each of {SERIES_FIRSTS} clones of the long game, one "
        f"after the other; {'; '.join(details)}",
    )
    health_row = compared(
        "`/healthz` p99 meanwhile",
        "ms",
        p99s,
        "<= 10 ms",
        at_most=10,
        now="timed out",
        note="a stdlib http.client poller in its own process, one request every 10 ms while the "
        f"`/series` requests run; {'; '.join(health_notes)}",
    )
    return series, health_row
