"""Every command of the docs runs as printed: each ```bash block of README.md and docs/**/*.md is
run by bash, unchanged, from the repository's root, against one served instance (the kept-running
demo, started by the docs' own command), and must exit 0.

The rules, the same for every page:
- a block is run with `set -e -o pipefail`, `U` set to the demo's HTTP URL and `REDIS_URL` to
  its Redis (the two URLs the demo prints), and every `curl` given `--fail-with-body`, so a
  refused connection or an answer of 400 or more fails the test;
- the block that is the served instance's command (`.venv/bin/scoreledger demo
  --keep-running`) is the command this test starts the instance with;
- a block not meant to be run (a deployment's, a synopsis with placeholders, the test run
  itself) carries the line `<!-- not run: REASON -->` right above its fence, and its test is
  skipped with that reason (`-rs` prints it): never a silent skip.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from services.platform.lifetime import stop_child
from tests import procs
from tests.cli.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
SHELLS = {"bash", "sh", "shell", "console"}
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.+?)\s*-->\s*$")
SERVED = ".venv/bin/scoreledger demo --keep-running"
"""The served instance's command, as the docs print it."""
PREAMBLE = 'set -e -o pipefail\ncurl() { command curl --fail-with-body "$@"; }\n'
"""What bash runs before each block (the rules of the module docstring)."""


@dataclass(frozen=True)
class Block:
    """One shell code block: its page (from the root), fence line, text (dedented) and, when
    marked not to be run, the reason."""

    page: str
    line: int
    text: str
    not_run: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def commands(self) -> list[str]:
        """Its command lines without their trailing comments (for the served-instance rule)."""
        lines = (line.split("  #", 1)[0].strip() for line in self.text.splitlines())
        return [line for line in lines if line and not line.startswith("#")]


def blocks(path: Path) -> list[Block]:
    """The shell blocks of the Markdown page at `path`, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        if match["lang"] in SHELLS:
            indent = len(match["indent"])
            above = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            mark = NOT_RUN.match(above)
            text = "\n".join(line[indent:] for line in lines[i + 1 : end]) + "\n"
            rel = path.relative_to(ROOT).as_posix()
            found.append(Block(rel, i + 1, text, mark["reason"] if mark else None))
        i = end + 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]


@dataclass(frozen=True)
class Served:
    """The running demo: its HTTP and Redis URLs."""

    url: str
    redis_url: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The kept-running demo, started by the docs' own command (`SERVED`) on a throwaway
    redis-server; its URLs read from its state file; stopped (SIGTERM) after the module."""
    home = tmp_path_factory.mktemp("served")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SCORELEDGER_REDIS_URL")}
    env["XDG_RUNTIME_DIR"] = str(home)  # the demo's state file, read below
    state = home / "scoreledger" / "scoreledger-demo.json"
    log = home / "demo.log"
    with log.open("wb") as out:
        demo = subprocess.Popen(
            shlex.split(SERVED), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 240  # a full demo at load 8
        while "serving until Ctrl-C" not in log.read_text(errors="replace"):
            assert demo.poll() is None, log.read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "the demo did not come up"
            time.sleep(0.2)
        data = json.loads(state.read_text())
        yield Served(data["url"], data["redis_url"])
    finally:
        if demo.poll() is None:
            stop_child(demo, signal.SIGTERM, 60)
        procs.wait_until_none(lambda: procs.in_session(demo.pid), 10.0)


def test_the_docs_have_runnable_blocks_and_each_skip_gives_a_reason() -> None:
    """The extraction itself: the tour, the walk-through and the inbox are found and run."""
    run = {block.page for block in ALL if block.not_run is None}
    assert {"README.md", "docs/tournaments.md", "docs/integrating/inbox.md"} <= run, run
    assert all(block.not_run for block in ALL if block.not_run is not None)
    assert sum(SERVED in block.commands() for block in ALL) >= 2  # README and getting started


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("block", ALL, ids=lambda block: block.id)
def test_the_block_runs_as_printed(block: Block, request: pytest.FixtureRequest) -> None:
    if block.not_run is not None:
        pytest.skip(f"{block.id} is marked not run: {block.not_run}")
    served: Served = request.getfixturevalue("served")
    if block.commands() == [SERVED]:
        return  # the instance itself: `served` started it with this very command
    done = subprocess.run(
        ["bash", "-c", PREAMBLE + block.text],
        cwd=ROOT,
        env={**os.environ, "U": served.url, "REDIS_URL": served.redis_url},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{block.id}:\n{block.text}\n{done.stdout}\n{done.stderr}"
