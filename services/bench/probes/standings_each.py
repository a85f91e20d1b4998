"""`python standings_each.py OUT.json FILE...`: standings after every event, the way a live
projection needs them, minus the fold alone, per event (CPU µs), against `json.loads` of one
envelope. Uses the tree's `domain.fold.evolve` and its standings kept per event:
`domain.standings_kept.kept_standings` where the tree has it (equal to the full render,
updated from what each event changed), else `domain.standings.standings`, the public contract
every tree keeps; which one is reported as `api`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    out, files = sys.argv[1], sys.argv[2:]
    from contracts.events import parse_event_json
    from domain.fold import evolve

    try:
        from domain.standings_kept import kept_standings as standings

        api = "evolve + kept_standings(state) after each event"
    except ImportError:  # a tree before incremental standings
        from domain.standings import standings

        api = "evolve + standings(state) after each event"

    games = [
        [parse_event_json(x) for x in Path(f).read_text(encoding="utf-8").splitlines()]
        for f in files
    ]
    lines = [x for f in files for x in Path(f).read_text(encoding="utf-8").splitlines()]
    n = sum(len(g) for g in games)

    def fold_only() -> None:
        for game in games:
            state: Any = None
            for event in game:
                state = evolve(state, event)

    def with_standings() -> None:
        for game in games:
            state: Any = None
            for event in game:
                state = evolve(state, event)
                standings(state)

    def best(work: Any, repeats: int = 3) -> float:
        cpu = float("inf")
        for _ in range(repeats):
            t0 = time.process_time()
            work()
            cpu = min(cpu, time.process_time() - t0)
        return cpu

    loads = best(lambda: [json.loads(x) for x in lines], 5)
    folded = best(fold_only)
    each = best(with_standings)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(
            {
                "events": n,
                "api": api,
                "standings_us": max(0.0, each - folded) / n * 1e6,
                "fold_us": folded / n * 1e6,
                "loads_us": loads / len(lines) * 1e6,
            },
            fh,
        )


if __name__ == "__main__":
    main()
