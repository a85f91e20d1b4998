"""Issue 9 row: ours vs the `eventsourcing` library on PostgreSQL, the same work: every game's
events appended in batches of 50, then final standings of every game.

Ours: the tree's `scoreledger serve --no-inbox` (ingest, projector and query in one process, as
the peer is one process), one game after another through `POST /games/{id}/events` with write
tokens, timed until `GET /games/{id}/standings` shows every game's last seq. The peer
(services/bench/probes/peer_es.py) folds with the same tree's pure fold."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import httpx

from services.bench import corpus, proc
from services.bench.layout import Loader
from services.bench.redis_server import free_port
from services.bench.table import Row
from services.bench.trees import Tree

PROBES = Path(__file__).parent / "probes"
BATCH = 50


def ours(tree: Tree, url: str, games: list[corpus.Game]) -> float:
    """Events/s (wall) of the whole work through our HTTP doors."""
    loader = Loader(url)
    loader.flush()
    loader.close()
    port = free_port()
    argv = tree.cli(
        "serve", "--no-inbox", "--host", "127.0.0.1", "--port", str(port), "--redis-url", url
    )
    base = f"http://127.0.0.1:{port}"
    with (
        proc.Service(argv, tree.env(), tree.root, base + "/healthz"),
        httpx.Client(base_url=base, timeout=60) as http,
    ):
        started = time.perf_counter()
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
        for game in games:
            game_id = json.loads(game[0])["game_id"]
            while True:
                reply = http.get(f"/games/{game_id}/standings")
                if reply.status_code == 200 and reply.json().get("seq") == len(game):
                    break
                time.sleep(0.01)
        elapsed = time.perf_counter() - started
    return corpus.count(games) / elapsed


def peer(tree: Tree, games: list[corpus.Game]) -> float:
    """Events/s (wall) of the peer doing the same work with this tree's fold."""
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as where:
        files = [str(p) for p in corpus.write(games, Path(where))]
        out = Path(where) / "out.json"
        proc.run(
            [proc_python(), str(PROBES / "peer_es.py"), str(out), *files], tree.env(), tree.root
        )
        got = json.loads(out.read_text())
    return float(got["events"]) / float(got["wall_s"])


def proc_python() -> str:
    import sys

    return sys.executable


def peer_row(trees: list[Tree], url: str, games: list[corpus.Game]) -> Row:
    ratios, details = [], []
    for tree in trees:
        mine, theirs = ours(tree, url, games), peer(tree, games)
        ratios.append(mine / theirs)
        details.append(f"{tree.label} {mine:,.0f} vs {theirs:,.0f} events/s")
    return Row(
        "ours vs eventsourcing + PostgreSQL, same work",
        "x peer",
        ratios[0],
        ratios[-1],
        ">= 10x",
        ratios[-1] >= 10,
        now="2.5-4.4x",
        note=f"{len(games)} games, {corpus.count(games)} events, batches of {BATCH}, one game "
        f"at a time; ours through HTTP until standings show the last seq; {'; '.join(details)}",
    )
