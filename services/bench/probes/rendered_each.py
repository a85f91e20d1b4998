"""`python rendered_each.py OUT.json FILE...`: the projection both writers store rendered after
every event (`services.usecases.projected.rendered`: the standings JSON and the view, as the
append's live projection and the projector's per-batch rendering take them), minus the fold
alone, per event (CPU µs, best of 5), against `json.loads` of one envelope.
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
    from services.usecases.projected import rendered

    lines = [x for f in files for x in Path(f).read_text(encoding="utf-8").splitlines()]
    games = [
        [parse_event_json(x) for x in Path(f).read_text(encoding="utf-8").splitlines()]
        for f in files
    ]
    n = sum(len(g) for g in games)

    def each(render: Any) -> None:
        for game in games:
            state: Any = None
            for event in game:
                state = evolve(state, event)
                if render is not None:
                    render(state)

    def best(work: Any, repeats: int = 5) -> float:
        cpu = float("inf")
        for _ in range(repeats):
            t0 = time.process_time()
            work()
            cpu = min(cpu, time.process_time() - t0)
        return cpu

    loads = best(lambda: [json.loads(x) for x in lines])
    folded = best(lambda: each(None))
    with_render = best(lambda: each(rendered))
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(
            {
                "events": n,
                "rendered_us": max(0.0, with_render - folded) / n * 1e6,
                "fold_us": folded / n * 1e6,
                "loads_us": loads / len(lines) * 1e6,
            },
            fh,
        )


if __name__ == "__main__":
    main()
