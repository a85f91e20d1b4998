"""Performance, counted in instructions instead of CPU time (docs/benchmarks.md):

- "service instructions per event, all roles": the all-roles row's load (`rows_roles`,
  `rows_peer.post_games`) on fewer games;
- "projector catch-up instructions per event": the catch-up row's work (`rows_projector`) on two
  prefixes of its games, the difference per event (start-up and shut-down cancel out).

For the first, `scoreledger serve` runs under valgrind's callgrind with its
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

from services.bench import corpus, proc, rows_peer, rows_projector, rows_roles
from services.bench.layout import Loader
from services.bench.redis_server import free_port
from services.bench.table import Row, compared
from services.bench.trees import Tree

TABLES = 30
"""Games of the all-roles row (seed `rows_roles.SEED`): about 4,500 events, a few minutes under
valgrind."""

CATCH_UP_GAMES = (60, 180)
"""The two prefixes of the projector's games the catch-up row counts (about 7,000 and 21,000
events of the bench corpus): about a minute and a half a tree under valgrind."""


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
    _require_valgrind()
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


def _require_valgrind() -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise RuntimeError("valgrind is not installed (deploy/scripts/system-deps.sh)")


def projector_instructions(tree: Tree, url: str, games: list[corpus.Game]) -> tuple[int, int]:
    """(events, instructions) of `tree`'s projector process (`python -m services.cli.projector`
    under callgrind) from its start until it has caught up with a log of `games` written to the
    Redis at `url` (flushed first) from checkpoint 0, start-up included. Raises RuntimeError
    without valgrind, or when the catch-up takes over 15 minutes."""
    _require_valgrind()
    events, _, _ = rows_projector.prefill(url, games)
    rows_projector.reset(url)
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as where:
        out = Path(where) / "callgrind.out"
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *tree.projector()]
        env = rows_projector.projector_env(tree, url) | {
            "PYTHONHASHSEED": "0",
            # valgrind runs it ~50x slower: a lease lost meanwhile would fold batches again
            "SCORELEDGER_LEASE_TTL_MS": "600000",
            "SCORELEDGER_PROJECTOR_START_TIMEOUT_S": "300",
        }
        loader = Loader(url)
        try:
            with proc.Service(argv, env, tree.root) as service:
                started = time.monotonic()
                while loader.behind():
                    if time.monotonic() - started > 900:
                        raise RuntimeError(f"catch-up of {events} events not done in 15 min")
                    time.sleep(0.1)
                _callgrind(service, "--dump")  # caught up: its shut-down is not counted
                _callgrind(service, "--instr=off")
        finally:
            loader.close()
        return events, _totals(out)


def per_event(small: tuple[int, int], large: tuple[int, int]) -> float:
    """Instructions per event of the difference between two (events, instructions) counts of
    the same work on a smaller and a larger log: what start-up costs is in both. Raises
    ValueError unless the larger log holds more events."""
    if large[0] <= small[0]:
        raise ValueError(f"the larger log must hold more events: {small[0]} vs {large[0]}")
    return (large[1] - small[1]) / (large[0] - small[0])


def catch_up_instructions_row(
    trees: list[Tree], url: str, games: list[corpus.Game], sizes: tuple[int, int] = CATCH_UP_GAMES
) -> Row:
    """The row: thousands of instructions per event of each tree's projector catching up, from
    the first `sizes[0]` and the first `sizes[1]` of `games`, one run each. Each tree's
    bytecode caches are written first (`rows_projector.compiled`): a baseline checkout has none,
    and the smaller log's run would count compiling every module."""
    small, large = games[: sizes[0]], games[: sizes[1]]
    for tree in trees:
        rows_projector.compiled(tree, url)
    per = [
        per_event(
            projector_instructions(tree, url, small), projector_instructions(tree, url, large)
        )
        / 1000
        for tree in trees
    ]
    return compared(
        "projector catch-up instructions per event",
        "k instructions",
        per,
        "<= today's",
        at_most=per[0],
        note=f"the catch-up row's work under callgrind: the projector process from its start until "
        f"it has caught up with the first {len(small)} and the first {len(large)} of its games "
        f"({corpus.count(small):,} and {corpus.count(large):,} events, from checkpoint 0); the "
        "difference per event, one run each",
    )
