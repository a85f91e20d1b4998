"""The clients' runnable examples against a served instance (`scoreledger serve` on a free port
over the clean session Redis): each creates a game with a chosen token, sends an example game
with one lost answer and its retry, follows the standings over SSE (with a resume) to the last
seq, and prints the final standings (each dry-runs a batch first), which must be the example's hand-checked ones
(contracts/examples/*.expected.json)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "contracts" / "examples"
TYPESCRIPT = ROOT / "contracts" / "typescript"
GAMES = ["penumbra-3p", "trickerion-4p-dark-alley-academy"]


def expected(game: str) -> dict[str, object]:
    """The example's hand-checked final standings: game, winner, each player's total."""
    sheet = json.loads((EXAMPLES / f"{game}.expected.json").read_text(encoding="utf-8"))
    totals = {p: v["total"] for p, v in sheet["players"].items()}
    return {"game_id": sheet["game_id"], "winner": sheet["winner"], "totals": totals}


def check(summary: dict[str, object], game: str) -> None:
    players = summary["players"]
    assert isinstance(players, dict)
    totals = {p: line["total"] for p, line in players.items()}
    sheet = expected(game)
    # created under the file's game id with a fresh suffix: the file's own id is the demo's
    game_id = str(summary["game_id"])
    assert game_id.startswith(f"{sheet['game_id']}-")
    assert len(game_id) == len(str(sheet["game_id"])) + 7
    assert {"game_id": sheet["game_id"], "winner": summary["winner"], "totals": totals} == sheet
    assert summary["status"] == "final"
    assert summary["lost_responses"] == 1
    assert summary["duplicates"] == 20  # the lost batch of 20, answered `duplicate` on retry
    assert summary["resumed"] is True
    # each example checks its next batch with a dry run first
    assert summary["dry_run"] == {"events": 20, "version": 21, "stored": False}


def last_line(argv: list[str], cwd: Path) -> dict[str, object]:
    """Run an example client to its end (150 s at most); its last line of output, parsed."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=150, check=False)
    assert done.returncode == 0, done.stderr
    summary: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return summary


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_python_example_against_a_served_instance(
    serve_process: Callable[..., str], game: str
) -> None:
    url = serve_process()
    summary = python_example(url, "--log", str(EXAMPLES / f"{game}.jsonl"), "--batch", "20")
    check(summary, game)


def python_example(url: str, *args: str) -> dict[str, object]:
    """Run the Python example against `url` with `args`; the summary it printed last."""
    argv = [sys.executable, "-m", "contracts.client.example", "--base-url", url, *args]
    return last_line(argv, ROOT)


def demo_game(url: str, game: str) -> None:
    """Create the example's game under the file's own id with another token, as `make demo`
    does on a fresh Redis."""
    first = (EXAMPLES / f"{game}.jsonl").read_bytes().splitlines()[0]
    game_id = json.loads(first)["game_id"]
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + "d" * 32}
    answer = httpx.post(f"{url}/games/{game_id}/events", content=first, headers=headers)
    assert answer.status_code == 201, answer.text


@pytest.mark.redis
@pytest.mark.slow
def test_the_python_example_runs_beside_the_demo_s_game(
    serve_process: Callable[..., str],
) -> None:
    """The demo holds `pen-demo-3p` under its own token; the example, run as documented with
    no `--game-id`, creates its own game beside it (with the file's id it was refused)."""
    url = serve_process()
    demo_game(url, "penumbra-3p")
    check(python_example(url), "penumbra-3p")


def npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run npm in contracts/typescript; fails (never skips) when Node.js is missing."""
    tool = shutil.which("npm")
    if tool is None:
        pytest.fail(
            "npm is not installed: the TypeScript client needs Node.js 20 (make system-deps)"
        )
    return subprocess.run(
        [tool, "--prefix", str(TYPESCRIPT), *args],
        cwd=TYPESCRIPT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def typescript_build() -> Path:
    """`npm ci` (from the pinned lock file, unless `make test` just did) and `npm run build`:
    openapi-typescript on contracts/openapi.json with no flags, then `tsc` (strict) on the
    client and the example against those types. Returns the compiled example."""
    stamp = TYPESCRIPT / "node_modules" / ".installed"
    lock = TYPESCRIPT / "package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        done = npm("ci", "--no-audit", "--no-fund")
        assert done.returncode == 0, done.stderr
        stamp.touch()
    done = npm("run", "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return TYPESCRIPT / "dist" / "example.js"


@pytest.mark.node
def test_openapi_typescript_generates_usable_types_without_flags(typescript_build: Path) -> None:
    # the build ran `openapi-typescript ../openapi.json -o src/schema.d.ts` with no flag and
    # `tsc --strict` accepted the client's uses of the generated types
    schema = (TYPESCRIPT / "src" / "schema.d.ts").read_text(encoding="utf-8")
    assert typescript_build.exists()
    for name in ("Appended", "AppendedEvent", "StandingsResponse", "Problem", "Event"):
        assert f"\n        {name}: " in schema, name
    appended = schema.split("\n        Appended: {", 1)[1].split("\n        };", 1)[0]
    assert "version: number;" in appended  # required, not `version?:`


@pytest.mark.node
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_typescript_example_against_a_served_instance(
    typescript_build: Path, serve_process: Callable[..., str], game: str
) -> None:
    node = shutil.which("node")
    assert node is not None
    url = serve_process()
    argv = [node, str(typescript_build), "--base-url", url]
    check(last_line([*argv, "--log", str(EXAMPLES / f"{game}.jsonl")], TYPESCRIPT), game)
