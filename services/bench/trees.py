"""The two trees a run compares: the landed code (a baseline commit checked out into a temporary
`git worktree`) and the current tree, run with the same virtual environment.

A child process runs a tree's code by putting the tree's root first on `PYTHONPATH` (the venv's
editable install is a `.pth` path entry, which comes after it) and running in that directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BASELINE = "8810943"
"""The landed code the "today" column measures (docs/decisions/0012-hot-reads-and-off-loop-replays.md's figures were taken on it)."""

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Tree:
    """A checkout to run: `label` ("today" / "new"), its `root` and short `commit`."""

    label: str
    root: Path
    commit: str

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a child running this tree's code (Redis URL etc. in `extra`)."""
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PYTHONPATH")}
        # 16 shards: the layout the bench writes (services/bench/layout.py SHARDS)
        env.update({"PYTHONPATH": str(self.root), "SCORELEDGER_SHARDS": "16"})
        env.update(extra)
        return env

    def projector(self) -> list[str]:
        """argv of this tree's projector process (`services.cli.projector`; in trees from
        before it moved there, `services.projector`)."""
        moved = (self.root / "services" / "cli" / "projector.py").exists()
        return self.module("services.cli.projector" if moved else "services.projector")

    def cli(self, *args: str) -> list[str]:
        """argv of `scoreledger ARGS...` as this tree builds it (the console script's body)."""
        return [sys.executable, "-c", "from services.cli.main import app; app()", *args]

    def module(self, name: str, *args: str) -> list[str]:
        """argv of `python -m NAME ARGS...` in this tree."""
        return [sys.executable, "-m", name, *args]


def git(*args: str, cwd: Path = ROOT) -> str:
    """`git ARGS` in `cwd`, its stdout stripped ("unknown" when git fails)."""
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def current() -> Tree:
    """The tree this harness runs from."""
    dirty = "+dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    return Tree("new", ROOT, git("rev-parse", "--short", "HEAD") + dirty)


@contextmanager
def baseline(commit: str = BASELINE) -> Iterator[Tree]:
    """`with baseline() as tree:` the landed code at `commit` in a temporary detached worktree,
    removed afterwards (also when the run fails)."""
    where = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    path = where / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(path), commit],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    try:
        yield Tree("today", path, git("rev-parse", "--short", "HEAD", cwd=path))
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True
        )
        shutil.rmtree(where, ignore_errors=True)
