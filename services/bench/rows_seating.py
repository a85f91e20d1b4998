"""The seating rows (new tree only: the landed code has no tournaments): the engine against the
greedy method on simulated tournaments of 12-60 players over 5-7 rounds, and the time to seat
60 players, measured by `probes/seating.py` in the tree under test.

Run alone (without `make bench`): `python -m services.bench.rows_seating [SEEDS]` prints the
table in markdown.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from services.bench.table import Row

PROBE = Path(__file__).parent / "probes" / "seating.py"


def measure(
    root: Path,
    env: dict[str, str] | None = None,
    seeds: int = 1,
    players: tuple[int, ...] = (12, 13, 24, 30, 60),
) -> dict[str, Any]:
    """Run the probe in the tree at `root`; its JSON document (see the probe's doc)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(
            [sys.executable, str(PROBE), out.name, str(seeds), ",".join(map(str, players))],
            cwd=root,
            env=env,
            check=True,
            timeout=1800,
        )
        result: dict[str, Any] = json.loads(Path(out.name).read_text(encoding="utf-8"))
        return result


def rows(result: dict[str, Any]) -> list[Row]:
    """One row per tournament size (repeats engine vs greedy) and the 60-player seating time."""
    out = []
    for size in result["sizes"]:
        e, g = size["engine"], size["greedy"]
        out.append(
            Row(
                f"repeat meetings, {size['players']} players x {size['rounds']} rounds",
                "repeats",
                g["repeats"],
                e["repeats"],
                "engine <= greedy",
                e["repeats"] <= g["repeats"],
                note=f"greedy -> engine: worst player {g['worst_repeats']} -> {e['worst_repeats']}, "
                f"seat spread {g['seat_spread']} -> {e['seat_spread']}, lower bound "
                f"{e['lower_bound']} (engine {e['repeats'] - e['lower_bound']} above it)",
                ratio_text="-",
            )
        )
    out.append(
        Row(
            "seat round 7 of 60 players (Swiss, local search)",
            "ms CPU",
            None,
            result["seat_60_ms"],
            "< 1000 ms",
            result["seat_60_ms"] < 1000,
            note="new tree only; median of 5",
        )
    )
    return out


def markdown(result: dict[str, Any]) -> str:
    """The comparison as a markdown table."""
    lines = [
        "| players | rounds | repeats engine / greedy | worst player | seat spread | lower bound |",
        "|---|---|---|---|---|---|",
    ]
    for s in result["sizes"]:
        e, g = s["engine"], s["greedy"]
        lines.append(
            f"| {s['players']} | {s['rounds']} | {e['repeats']} / {g['repeats']} | "
            f"{e['worst_repeats']} / {g['worst_repeats']} | {e['seat_spread']} / "
            f"{g['seat_spread']} | {e['lower_bound']} / {g['lower_bound']} |"
        )
    lines.append(
        f"\nSeating round 7 of 60 players: {result['seat_60_ms']:.0f} ms CPU (median of 5)."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="The seating row: engine against greedy.")
    parser.add_argument("seeds", nargs="?", type=int, default=1, help="seeds per size")
    args = parser.parse_args()
    print(markdown(measure(Path(__file__).resolve().parents[2], seeds=args.seeds)))
