"""Workload inputs: simulated games (made by the baseline tree's `scoreledger simulate`, so both
trees accept them), long games padded with net-zero Coins changes, and clones of games under new
ids for a log of any size. A game is a list of envelope JSON lines in seq order.
"""

from __future__ import annotations

import json
import sys
import tempfile
import uuid
from pathlib import Path

from services.bench import proc
from services.bench.trees import Tree

Game = list[str]
PROBES = Path(__file__).parent / "probes"
STAMP = "2026-12-01T00:00:00Z"


def simulate(tree: Tree, tables: int, seed: int, kind: str = "mixed") -> list[Game]:
    """`tables` games from `scoreledger simulate --out` of `tree`, `recorded_at` stamped as the
    ingest would."""
    with tempfile.TemporaryDirectory(prefix="bench-sim-") as out:
        args = ["simulate", "--game", kind, "--tables", str(tables), "--seed", str(seed)]
        proc.run(tree.cli(*args, "--out", out), tree.env(), tree.root, timeout=600)
        files = sorted(Path(out).glob("*.jsonl"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
        return [_stamp(p.read_text().splitlines()) for p in files]


def accepted(trees: list[Tree], games: list[Game]) -> list[Game]:
    """The games every tree's `score` accepts (in their order)."""
    with tempfile.TemporaryDirectory(prefix="bench-valid-") as where:
        paths = write(games, Path(where))
        ok = {str(p) for p in paths}
        for tree in trees:
            out = Path(where) / "ok.json"
            argv = [sys.executable, str(PROBES / "valid.py"), str(out), *sorted(ok)]
            proc.run(argv, tree.env(), tree.root, timeout=900)
            ok &= set(json.loads(out.read_text()))
        return [g for g, p in zip(games, paths, strict=True) if str(p) in ok]


def common(trees: list[Tree], tables: int, seed: int) -> tuple[list[Game], str]:
    """About `tables` simulated games that every tree accepts: from each tree's simulator in
    turn (the landed one first), each game checked by every tree; and a note of the counts."""
    games: list[Game] = []
    parts = []
    for i, tree in enumerate(trees):
        made = simulate(tree, tables * 2, seed + i)
        kept = accepted(trees, made)
        parts.append(f"{len(kept)} of {len(made)} games of the {tree.label} simulator")
        games += kept
        if len(games) >= tables:
            break
    ids: set[str] = set()
    unique = []
    for game in games:
        game_id = json.loads(game[0])["game_id"]
        if game_id not in ids:
            ids.add(game_id)
            unique.append(game)
    return unique[:tables], "corpus: " + ", ".join(parts) + " accepted by every tree"


def _stamp(lines: list[str]) -> Game:
    out = []
    for line in lines:
        if line.strip():
            raw = json.loads(line)
            raw["recorded_at"] = raw["recorded_at"] or STAMP
            out.append(json.dumps(raw, separators=(",", ":")))
    return out


def pad(game: Game, length: int) -> Game:
    """A Trickerion game of exactly `length` events (or its own length if longer): pairs of
    +1 / -1 Coins changes (net zero, so the result is the same game) before `game.ended`,
    seqs renumbered, fresh event ids."""
    events = [json.loads(line) for line in game]
    head, end = events[:-1], events[-1]
    players = [p["player_id"] for p in head[0]["payload"]["players"]]
    filler = []
    for i in range(max(0, length - len(events))):
        pid = players[(i // 2) % len(players)]
        filler.append(
            dict(
                head[-1],
                event_id=str(uuid.UUID(int=i + 1)),
                type="trickerion.resources_changed",
                payload={
                    "player_id": pid,
                    "fame": 0,
                    "coins": 1 if i % 2 == 0 else -1,
                    "shards": 0,
                    "reason": "other",
                },
            )
        )
    whole = [*head, *filler, end]
    for seq, raw in enumerate(whole, start=1):
        raw["seq"] = seq
    return [json.dumps(raw, separators=(",", ":")) for raw in whole]


def minimal(game: Game) -> Game:
    """The game's first event only: what one `score` call costs besides the per-event work
    (reading the file, the command's dispatch, standings of the start and their JSON)."""
    return game[:1]


def clone(game: Game, game_id: str) -> Game:
    """The same game under another id (event ids are per game, so they may repeat)."""
    old = json.loads(game[0])["game_id"]
    needle = f'"game_id":"{old}"'
    return [line.replace(needle, f'"game_id":"{game_id}"', 1) for line in game]


def log_of(games: list[Game], events: int) -> list[Game]:
    """Clones of `games` (ids `bulk-K`) until at least `events` events."""
    out: list[Game] = []
    total, k = 0, 0
    while total < events:
        game = clone(games[k % len(games)], f"bulk-{k}")
        out.append(game)
        total += len(game)
        k += 1
    return out


def count(games: list[Game]) -> int:
    return sum(len(g) for g in games)


def trickerion(games: list[Game]) -> list[Game]:
    """The Trickerion games of a corpus."""
    return [g for g in games if '"type":"trickerion.game_started"' in g[0]]


def write(games: list[Game], where: Path) -> list[Path]:
    """One JSONL file per game under `where`; their paths."""
    where.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, game in enumerate(games):
        path = where / f"g{i}.jsonl"
        path.write_text("\n".join(game) + "\n")
        paths.append(path)
    return paths
