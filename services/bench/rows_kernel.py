"""The kernel's in-process offline-fold rows (services/bench/fold_cost.py, new tree only: the
landed code has no such script): one padded Trickerion game of each length, parse + fold +
final standings against `json.loads` of the same lines, CPU time, in this process."""

from __future__ import annotations

from services.bench import fold_cost
from services.bench.table import Row


def kernel_rows(lengths: tuple[int, ...]) -> list[Row]:
    """One row per game length (new column only)."""
    rows = []
    for length in lengths:
        c = fold_cost.measure(length)
        rows.append(
            Row(
                f"offline fold of one {length:,}-event game, in-process (fold_cost.py)",
                "x json.loads",
                None,
                c.ratio,
                ">= 1.0x json.loads",
                c.ratio >= 1.0,
                note=f"new tree only; µs per event: offline {c.offline_us:.1f} (parse "
                f"{c.parse_us:.1f}, fold {c.fold_us:.1f}), standings after each event "
                f"{c.standings_each_us:.1f}, json.loads {c.json_loads_us:.1f}",
            )
        )
    return rows
