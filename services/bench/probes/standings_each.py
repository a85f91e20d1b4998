"""`python standings_each.py OUT.json FILE...`: standings after every event, the way a live
projection needs them, minus the fold alone, per event (CPU µs), against `json.loads` of one
envelope. Uses the tree's `domain.fold.evolve` and its standings kept per event:
`domain.standings_kept.kept_standings` where the tree has it (equal to the full render,
updated from what each event changed), else `domain.standings.standings`, the public contract
every tree keeps; which one is reported as `api`. Where the tree has
`services.usecases.projected.rendered` (the standings JSON and view both writers store, as the
append's live projection and the projector's per-batch rendering take them), its cost after
every event is reported as `rendered_us` (best of 5), else null.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
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
    rendered: Callable[[Any], object] | None
    try:
        from services.usecases.projected import rendered
    except ImportError:  # a tree without one rendering for both writers
        rendered = None

    games = [
        [parse_event_json(x) for x in Path(f).read_text(encoding="utf-8").splitlines()]
        for f in files
    ]
    lines = [x for f in files for x in Path(f).read_text(encoding="utf-8").splitlines()]
    n = sum(len(g) for g in games)

    def each(render: Callable[[Any], object] | None) -> None:
        for game in games:
            state: Any = None
            for event in game:
                state = evolve(state, event)
                if render is not None:
                    render(state)

    def best(work: Callable[[], object], repeats: int = 3) -> float:
        cpu = float("inf")
        for _ in range(repeats):
            t0 = time.process_time()
            work()
            cpu = min(cpu, time.process_time() - t0)
        return cpu

    loads = best(lambda: [json.loads(x) for x in lines], 5)
    folded = best(lambda: each(None))
    kept = best(lambda: each(standings))
    projected = None if rendered is None else best(lambda: each(rendered), 5)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(
            {
                "events": n,
                "api": api,
                "standings_us": max(0.0, kept - folded) / n * 1e6,
                "rendered_us": None
                if projected is None
                else max(0.0, projected - folded) / n * 1e6,
                "fold_us": folded / n * 1e6,
                "loads_us": loads / len(lines) * 1e6,
            },
            fh,
        )


if __name__ == "__main__":
    main()
