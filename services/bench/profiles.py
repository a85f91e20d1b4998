"""Profiles of the current tree for the rows that miss their targets (pyinstrument, text
output under docs/profiles/): the offline fold (`score` in one process) and the projector
catching up a prefilled log. Each saved file is named in the notes."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from services.bench import corpus
from services.bench.layout import SHARDS, Loader
from services.bench.rows_projector import prefill, reset
from services.bench.trees import ROOT, Tree
from services.platform.lifetime import stop_child

PROBES = Path(__file__).parent / "probes"
OUT = ROOT / "docs" / "profiles"


def _pyinstrument(out: Path) -> list[str]:
    return [sys.executable, "-m", "pyinstrument", "-r", "text", "-o", str(out)]


def take(tree: Tree, url: str, games: list[corpus.Game]) -> list[str]:
    """Write the profiles; the notes naming them."""
    OUT.mkdir(parents=True, exist_ok=True)
    notes = []
    with tempfile.TemporaryDirectory(prefix="bench-prof-") as where:
        files = [str(p) for p in corpus.write(games[:100], Path(where))]
        fold = OUT / "offline-fold.txt"
        subprocess.run(
            [*_pyinstrument(fold), str(PROBES / "score_many.py"), f"{where}/o.json", "1", *files],
            env=tree.env(), cwd=tree.root, check=True, capture_output=True,
        )  # fmt: skip
        notes.append(
            f"Profile of the offline fold (`score` of 100 games in one process): {fold.relative_to(ROOT)}"
        )
    events, _, _ = prefill(url, games)
    reset(url)
    loader = Loader(url)
    proj = OUT / "projector-catch-up.txt"
    env = tree.env(
        SCORELEDGER_REDIS_URL=url, SCORELEDGER_SHARDS=str(SHARDS), SCORELEDGER_LOG_LEVEL="WARNING"
    )
    child = subprocess.Popen(
        [*_pyinstrument(proj), *tree.projector()[1:]], env=env, cwd=tree.root,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    started = time.monotonic()
    while loader.behind() and time.monotonic() - started < 300:
        time.sleep(0.05)
    stop_child(child, signal.SIGINT, 30)
    loader.close()
    if proj.exists():
        notes.append(
            f"Profile of the projector catching up {events} events: {proj.relative_to(ROOT)}"
        )
    return notes
