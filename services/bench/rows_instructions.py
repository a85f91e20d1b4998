"""Performance (the "service instructions per event, all roles" row of docs/benchmarks.md): the
all-roles row's load (`rows_roles`, `rows_peer.post_games`) on fewer games, counted in
instructions instead of CPU time. `scoreledger serve` runs under valgrind's callgrind with its
counting off until the server has started; it counts from the first POST until every game's
standings show its last seq, and is dumped then (`callgrind_control`). Instructions do not move
with the machine's load, so a change of a few percent reads here where the CPU rows swing by
30% (docs/profiles/request-cost.md); two runs of one tree differed by 0-2%. Needs valgrind
(deploy/scripts/system-deps.sh)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from services.bench import corpus, proc, rows_peer, rows_roles
from services.bench.layout import Loader
from services.bench.redis_server import free_port
from services.bench.table import Row, compared
from services.bench.trees import Tree

TABLES = 30
"""Games of the row (seed `rows_roles.SEED`): about 4,500 events, a few minutes under valgrind."""


def _callgrind(service: proc.Service, *options: str) -> None:
    assert service.proc is not None
    subprocess.run(
        ["callgrind_control", *options, str(service.proc.pid)], check=True, capture_output=True
    )


def _totals(out: Path) -> int:
    """Instructions in every dump of callgrind output `out` (`out`, `out.1`, ...)."""
    total = 0
    for dump in out.parent.glob(out.name + "*"):
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                total += int(line.split()[1])
                break
    return total


def service_instructions(tree: Tree, url: str, games: list[corpus.Game]) -> int:
    """Instructions `tree`'s `serve` (every default role) spends on posting `games` and until
    their standings show; the Redis at `url` flushed first. Raises RuntimeError without
    valgrind, or as `rows_peer.post_games`."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise RuntimeError("valgrind is not installed (deploy/scripts/system-deps.sh)")
    loader = Loader(url)
    loader.flush()
    loader.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as where:
        out = Path(where) / "callgrind.out"
        argv = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",  # start-up (imports, compiles) is not the load
            f"--callgrind-out-file={out}",
            *tree.cli("serve", "--host", "127.0.0.1", "--port", str(port), "--redis-url", url),
        ]
        env = tree.env(PYTHONHASHSEED="0")
        with (
            proc.Service(argv, env, tree.root, base + "/healthz", ready_s=600) as service,
            httpx.Client(base_url=base, timeout=300) as http,
        ):
            time.sleep(1)  # the start's own work (first leases, warm-up) ends
            _callgrind(service, "--instr=on")
            rows_peer.post_games(http, games)
            rows_peer.await_standings(http, games, poll_s=0.05)
            _callgrind(service, "--dump")
            _callgrind(service, "--instr=off")
        return _totals(out)


def instructions_row(trees: list[Tree], url: str, tables: int = TABLES) -> Row:
    """The row: thousands of instructions per event of each tree's service, one run each."""
    games = corpus.accepted(trees, corpus.simulate(trees[0], tables, rows_roles.SEED))
    events = corpus.count(games)
    per = [service_instructions(tree, url, games) / events / 1000 for tree in trees]
    return compared(
        "service instructions per event, all roles in one process",
        "k instructions",
        per,
        "<= today's",
        at_most=per[0],
        note=f"the all-roles row's load on {len(games)} games (seed {rows_roles.SEED}, "
        f"{events:,} events, batches of {rows_peer.BATCH}) under callgrind, counted from the "
        "first POST until every standings shows its last seq; one run a tree",
    )
