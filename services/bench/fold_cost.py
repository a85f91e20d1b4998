"""Per-event cost of the offline fold by game length, against `json.loads` of the same lines.

`python -m services.bench.fold_cost [200,2000,10000]` prints, for one simulated
Trickerion game padded to each length, the CPU time (`time.process_time`) per event of: parsing
(`parse_event_json`), folding (`domain.fold.fold`), standings after every event, and the whole
offline path (parse + fold + final standings), and the ratio of `json.loads` of the same lines to
the whole path (>= 1.0 means the fold keeps up with plain JSON decoding).

A long game is the simulated game with pairs of Coins changes (+1, -1, net zero, so the result
is the same game) inserted before `game.ended`, the seqs renumbered.

`python -m services.bench.fold_cost corpus DIR` measures a set of games instead (e.g. the output
of `scoreledger simulate --out DIR`), adding standings kept after every event and the project
use case on the in-memory ports (`measure_corpus`).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from domain.fold import GameState, evolve, fold
from domain.standings import standings
from services.bench.proc import best_cpu

Lines = list[str]


def long_game(length: int, seed: int = 2026) -> Lines:
    """One rule-valid Trickerion game of exactly `length` events (at least the simulated one's)."""
    from services.simulator.tables import simulate_game

    events = [json.loads(dump_event_json(e)) for e in simulate_game("trickerion", seed, 0)]
    head, end = events[:-1], events[-1]
    players = [p["player_id"] for p in head[0]["payload"]["players"]]
    filler = []
    for i in range(max(0, length - len(events))):
        pad = dict(
            head[-1], event_id=str(uuid.UUID(int=i + 1)), type="trickerion.resources_changed"
        )
        coins = 1 if i % 2 == 0 else -1
        pid = players[(i // 2) % len(players)]
        pad["payload"] = {
            "player_id": pid,
            "fame": 0,
            "coins": coins,
            "shards": 0,
            "reason": "other",
        }
        filler.append(pad)
    game = [*head, *filler, end]
    for seq, raw in enumerate(game, start=1):
        raw["seq"] = seq
    return [json.dumps(raw, separators=(",", ":")) for raw in game]


@dataclass(frozen=True)
class FoldCost:
    """Per-event CPU µs at one game length, and the `json.loads` ratio of the whole path."""

    events: int
    json_loads_us: float
    parse_us: float
    fold_us: float
    standings_each_us: float
    offline_us: float

    @property
    def ratio(self) -> float:
        """Offline path speed as a multiple of `json.loads` speed (json time / offline time)."""
        return self.json_loads_us / self.offline_us


def measure(length: int, repeats: int = 3) -> FoldCost:
    """Measure one game of `length` events (see the module docstring)."""
    lines = long_game(length)
    parsed = [parse_event_json(line) for line in lines]
    n = len(lines)

    def standings_each() -> None:
        state: GameState | None = None
        for event in parsed:
            state = evolve(state, event)
            standings(state)

    def offline() -> None:
        standings(fold([parse_event_json(line) for line in lines]))

    us = 1e6 / n
    return FoldCost(
        events=n,
        json_loads_us=best_cpu(lambda: [json.loads(line) for line in lines], repeats) * us,
        parse_us=best_cpu(lambda: [parse_event_json(line) for line in lines], repeats) * us,
        fold_us=best_cpu(lambda: fold(parsed), repeats) * us,
        standings_each_us=best_cpu(standings_each, 1 if n > 5000 else repeats) * us,
        offline_us=best_cpu(offline, repeats) * us,
    )


def main(lengths: tuple[int, ...] = (200, 2_000, 10_000)) -> None:
    """Print one row per game length."""
    print("events  json.loads  parse  fold  standings/event  offline  ratio (µs per event)")
    for length in lengths:
        c = measure(length)
        print(
            f"{c.events:6d}  {c.json_loads_us:10.2f}  {c.parse_us:5.2f}  {c.fold_us:6.2f}"
            f"  {c.standings_each_us:15.2f}  {c.offline_us:7.2f}  {c.ratio:5.2f}x"
        )


@dataclass(frozen=True)
class CorpusCost:
    """CPU µs per event over a set of games (best of the repeats, garbage collection on).

    `standings_us` is standings after every event the way a live projection needs them
    (`evolve` + `standings`, less `evolve` alone); `standings_json_us` the same with the wire
    JSON rendered after every event; `project_us` the project use case (services/usecases/
    project.py) on the in-memory ports, batches of `batch` feed entries, parse included.
    """

    events: int
    json_loads_us: float
    parse_us: float
    fold_us: float
    standings_us: float
    standings_json_us: float
    offline_us: float
    project_us: float
    batch: int

    def line(self) -> str:
        """One readable line of the figures."""
        return (
            f"{self.events} events, µs per event: json.loads {self.json_loads_us:.2f}, parse "
            f"{self.parse_us:.2f}, fold {self.fold_us:.2f}, standings kept {self.standings_us:.2f}"
            f" ({self.standings_us / self.json_loads_us:.2f}x json.loads), + JSON each "
            f"{self.standings_json_us:.2f}, offline (parse + fold + standings) "
            f"{self.offline_us:.2f} ({self.json_loads_us / self.offline_us:.3f}x json.loads), "
            f"project use case {self.project_us:.2f} ({1e6 / self.project_us:,.0f} events/CPU-s, "
            f"batches of {self.batch})"
        )


def measure_corpus(games: list[Lines], repeats: int = 5, batch: int = 500) -> CorpusCost:
    """Measure `games` (each a list of envelope JSON lines in seq order; see `CorpusCost`)."""
    import asyncio

    from domain.standings import standings_json

    lines = [line for game in games for line in game]
    parsed = [[parse_event_json(line) for line in game] for game in games]
    n = len(lines)

    def evolve_each(render: Callable[[GameState], object] | None) -> None:
        for game in parsed:
            state: GameState | None = None
            for event in game:
                state = evolve(state, event)
                if render is not None:
                    render(state)

    def offline() -> None:
        for game in games:
            standings(fold([parse_event_json(line) for line in game]))

    us = 1e6 / n
    evolved = best_cpu(lambda: evolve_each(None), repeats)
    return CorpusCost(
        events=n,
        json_loads_us=best_cpu(lambda: [json.loads(line) for line in lines], repeats) * us,
        parse_us=best_cpu(lambda: [parse_event_json(line) for line in lines], repeats) * us,
        fold_us=best_cpu(lambda: [fold(game) for game in parsed], repeats) * us,
        standings_us=max(0.0, best_cpu(lambda: evolve_each(standings), repeats) - evolved) * us,
        standings_json_us=max(0.0, best_cpu(lambda: evolve_each(standings_json), repeats) - evolved)
        * us,
        offline_us=best_cpu(offline, repeats) * us,
        project_us=min(asyncio.run(_project_cpu(parsed, batch)) for _ in range(repeats)) * us,
        batch=batch,
    )


async def _project_cpu(games: list[list[Envelope]], batch: int) -> float:
    """CPU seconds of `Project.apply` over every shard feed of `games` (appended first)."""
    from services.bootstrap import memory_ports, use_cases
    from services.platform.settings import ServiceSettings

    shards = 4
    ports = memory_ports(shards)
    project = use_cases(ports, ServiceSettings(shards=shards)).project
    for game in games:
        for i in range(0, len(game), 50):
            await ports.log.append(game[0].game_id, game[i : i + 50])
    feeds = ports.log.b.feeds  # type: ignore[attr-defined]  # the memory backend's shard feeds
    started = time.process_time()
    for shard in range(shards):
        entries = list(feeds.get(shard, []))
        for i in range(0, len(entries), batch):
            await project.apply(shard, entries[i : i + batch])
    return time.process_time() - started


def corpus_main(paths: list[str]) -> None:
    """`python -m services.bench.fold_cost corpus FILE_OR_DIR...`: one line of figures over
    the JSONL games given (a directory: its *.jsonl files)."""
    from pathlib import Path

    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    games = [[x for x in f.read_text(encoding="utf-8").splitlines() if x.strip()] for f in files]
    print(measure_corpus(games).line())


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 1 and sys.argv[1] == "corpus":
        corpus_main(sys.argv[2:])
    else:
        main(
            tuple(int(x) for x in sys.argv[1].split(","))
            if len(sys.argv) > 1
            else (200, 2_000, 10_000)
        )


def offline_rate(lines: Lines) -> float:
    """Events/s (CPU) of the offline path on one game: parse, fold, final standings."""
    started = time.process_time()
    standings(fold([parse_event_json(line) for line in lines]))
    return len(lines) / (time.process_time() - started)


def json_rate(lines: Lines) -> float:
    """Lines/s (CPU) of `json.loads` over the same lines: the same-run baseline."""
    started = time.process_time()
    for line in lines:
        json.loads(line)
    return len(lines) / (time.process_time() - started)
