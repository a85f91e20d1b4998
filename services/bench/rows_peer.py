"""Performance (docs/decisions/0012-hot-reads-and-off-loop-replays.md): row: ours vs the `eventsourcing` library on PostgreSQL, the same work: every game's
events appended in batches of 50, then final standings of every game.

Ours: the tree's `scoreledger serve --no-inbox` (ingest, projector and query in one process, as
the peer is one process), one game after another through `POST /games/{id}/events` with write
tokens, timed until `GET /games/{id}/standings` shows every game's last seq. The peer
(services/bench/probes/peer_es.py) folds with the same tree's pure fold.

Same durability on both sides, as deployed: ours on its own redis-server with AOF
`appendfsync everysec` (deploy/redis.conf), the peer's PostgreSQL sessions with
`synchronous_commit=off` (a commit does not wait for its WAL flush; the WAL writer flushes
within 3 x `wal_writer_delay`, 600 ms by default). Both lose at most about a second of
acknowledged writes in a machine crash, none in a process crash. A fully synchronous peer (a
WAL fsync per saved batch) is measured too, for the note. Each side runs `REPEATS` times,
interleaved, and the best run is taken: on a shared 2-core machine one run of either side
moves by 3x (the peer's fsyncs most).

Same checks: the peer validates and folds each event before it records it, as our ingest
does before it appends (a peer that stores whatever it is sent does less; its figure is in
the note). Ours does more still: its projector keeps the standings after every batch, the
peer computes them once, at the end."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import httpx

from services.bench import corpus, proc
from services.bench.layout import Loader
from services.bench.redis_server import RedisServer, free_port
from services.bench.table import Row, compared
from services.bench.trees import Tree

PROBES = Path(__file__).parent / "probes"
BATCH = 50
REPEATS = 5
"""Runs of each side per tree, interleaved (the best is the figure)."""
ASYNC_COMMIT = "-c synchronous_commit=off"
"""libpq `PGOPTIONS` of the peer's sessions (durability as ours, see the module docstring)."""


def ours(
    tree: Tree, url: str, games: list[corpus.Game], roles: tuple[str, ...] = ("--no-inbox",)
) -> tuple[float, float]:
    """Events/s (wall) of the whole work through our HTTP doors, and the service process's
    CPU µs per event meanwhile; `roles`: `serve`'s role options (the inbox off by default, as
    the peer has none)."""
    loader = Loader(url)
    loader.flush()
    loader.close()
    port = free_port()
    argv = tree.cli("serve", *roles, "--host", "127.0.0.1", "--port", str(port), "--redis-url", url)
    base = f"http://127.0.0.1:{port}"
    with (
        proc.Service(argv, tree.env(), tree.root, base + "/healthz") as service,
        httpx.Client(base_url=base, timeout=60) as http,
    ):
        # timed from a settled service: its replay workers' start-up is not the work (the
        # peer's clock starts after its own set-up too)
        cpu = service.settled(quiet_s=0.5, slack_s=0.01)
        started = time.perf_counter()
        post_games(http, games)
        await_standings(http, games)
        elapsed = time.perf_counter() - started
        cpu = service.cpu() - cpu
    return corpus.count(games) / elapsed, cpu * 1e6 / corpus.count(games)


def post_games(http: httpx.Client, games: list[corpus.Game]) -> None:
    """POST every game's events through `http` (a client of a `serve`), one game after another
    in batches of `BATCH` (`recorded_at` null, as a table sends them), with the write token the
    first batch was given. Raises RuntimeError on any answer but 201."""
    for game in games:
        game_id = json.loads(game[0])["game_id"]
        headers = {"content-type": "application/json"}
        for i in range(0, len(game), BATCH):
            body = "[" + ",".join(game[i : i + BATCH]) + "]"
            reply = http.post(
                f"/games/{game_id}/events",
                content=body.replace(f'"recorded_at":"{corpus.STAMP}"', '"recorded_at":null'),
                headers=headers,
            )
            if reply.status_code != 201:
                raise RuntimeError(f"POST {game_id}: {reply.status_code} {reply.text[:300]}")
            token = reply.json().get("write_token")
            if token:
                headers["authorization"] = f"Bearer {token}"


def await_standings(http: httpx.Client, games: list[corpus.Game], poll_s: float = 0.002) -> None:
    """Wait until every game's standings through `http` show its last seq (polled every
    `poll_s` seconds: a 10 ms poll was up to 1/10 of a quick run)."""
    for game in games:
        game_id = json.loads(game[0])["game_id"]
        while True:
            reply = http.get(f"/games/{game_id}/standings")
            if reply.status_code == 200 and reply.json().get("seq") == len(game):
                break
            time.sleep(poll_s)


def peer(
    tree: Tree, games: list[corpus.Game], pgoptions: str = ASYNC_COMMIT, work: str = "checked"
) -> tuple[float, float]:
    """Events/s (wall) of the peer doing the same work with this tree's fold, and its Python
    process's CPU µs per event (PostgreSQL's not counted). `pgoptions`: libpq session
    options, "" for the server's defaults; `work`: "checked", each event validated and folded
    before it is recorded as our ingest does, or "store", not."""
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as where:
        files = [str(p) for p in corpus.write(games, Path(where))]
        out = Path(where) / "out.json"
        proc.run(
            [proc_python(), str(PROBES / "peer_es.py"), str(out), *files],
            tree.env(PGOPTIONS=pgoptions, PEER_WORK=work),
            tree.root,
        )
        got = json.loads(out.read_text())
    return float(got["events"]) / float(got["wall_s"]), 1e6 * got["cpu_s"] / got["events"]


def proc_python() -> str:
    import sys

    return sys.executable


def peer_row(trees: list[Tree], url: str, games: list[corpus.Game]) -> Row:
    """The row: the best of `REPEATS` interleaved runs of each side per tree (ours on its own
    AOF redis; `url`, the run's non-persistent server, is not used). Best, not median: on a
    machine shared with other work a run is only ever slowed, and both sides get as many."""
    mine: dict[str, list[tuple[float, float]]] = {t.label: [] for t in trees}
    theirs: dict[str, list[tuple[float, float]]] = {t.label: [] for t in trees}
    with RedisServer(aof=True) as durable:
        for _ in range(REPEATS):
            for tree in trees:
                mine[tree.label].append(ours(tree, durable.url, games))
                theirs[tree.label].append(peer(tree, games))
    synchronous, _ = peer(trees[-1], games, pgoptions="")
    unchecked, _ = peer(trees[-1], games, work="store")
    ratios, details = [], []
    for tree in trees:
        (a, a_cpu), (b, b_cpu) = max(mine[tree.label]), max(theirs[tree.label])
        ratios.append(a / b)
        runs = "/".join(f"{x:,.0f}" for x, _ in mine[tree.label])
        peer_runs = "/".join(f"{x:,.0f}" for x, _ in theirs[tree.label])
        details.append(
            f"{tree.label} {a:,.0f} vs {b:,.0f} events/s (runs {runs} vs {peer_runs}; CPU "
            f"{a_cpu:.0f} µs/event in our service process vs {b_cpu:.0f} in the peer's)"
        )
    return compared(
        "ours vs eventsourcing + PostgreSQL, same work",
        "x peer",
        ratios,
        ">= 4x",
        at_least=4,
        now="2.5-4.4x",
        note=f"{len(games)} games, {corpus.count(games)} events, batches of {BATCH}, one game "
        f"at a time; ours through HTTP until standings show the last seq; best of {REPEATS}; "
        f"ours AOF everysec, the peer synchronous_commit=off; {'; '.join(details)}; the peer "
        f"with a WAL fsync per batch (synchronous_commit=on): {synchronous:,.0f} events/s; the "
        f"peer storing events unchecked (no validation or rules at the write, as first "
        f"written): {unchecked:,.0f} events/s",
    )
