"""The report: docs/decisions/0012-hot-reads-and-off-loop-replays.md's target table (today, new, ratio, target, met/MISSED, what limits it),
the scale rows, and the run's header (machine, load average at start and end, date, commits)."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path


@dataclass
class Row:
    """One figure measured on both trees in this run.

    `today` / `new` in `unit` (None: not measured, `note` says why); `now` the issue's figure
    for the landed code (measured in an earlier session); `target` its text; `met` whether the
    new figure meets it (None: not decidable); `note` how it was measured and, when missed, what
    limits it; `ratio` new / today unless `ratio_text` overrides it.
    """

    figure: str
    unit: str
    today: float | None
    new: float | None
    target: str
    met: bool | None
    now: str = ""
    note: str = ""
    ratio_text: str | None = None

    @property
    def ratio(self) -> str:
        if self.ratio_text is not None:
            return self.ratio_text
        if self.today is None or self.new is None or self.today == 0:
            return "-"
        return f"{self.new / self.today:.3g}x"


def compared(
    figure: str,
    unit: str,
    values: Sequence[float | None],
    target: str,
    *,
    at_most: float | None = None,
    at_least: float | None = None,
    now: str = "",
    note: str = "",
) -> Row:
    """The row of a figure measured once per tree, `values` in the trees' order (the landed
    code first, the current tree last): today is the first, new the last, and the target is
    met when the new figure is measured and at most `at_most` / at least `at_least` (each
    bound given must hold). Raises ValueError when neither bound is given."""
    if at_most is None and at_least is None:
        raise ValueError("compared: give at_most or at_least")
    new = values[-1]
    met = (
        new is not None
        and (at_most is None or new <= at_most)
        and (at_least is None or new >= at_least)
    )
    return Row(figure, unit, values[0], new, target, met, now=now, note=note)


@dataclass
class Report:
    """Everything the markdown needs; `rows` in the issue's order, `extra` other figures."""

    rows: list[Row] = field(default_factory=list)
    extra: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    head: dict[str, str] = field(default_factory=dict)


def fmt(value: float | None) -> str:
    """1234567 -> 1.23M, 45678 -> 45.7k, 3.14159 -> 3.14; None -> "-"."""
    if value is None or value != value:
        return "-"
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min)"


def machine() -> str:
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem = next(
        (ln for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemTotal")),
        "MemTotal: 0 kB",
    )
    gib = int(mem.split()[1]) / 1024 / 1024
    return (
        f"{model}, {os.cpu_count()} cores, {gib:.1f} GiB RAM, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}"
    )


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _line(row: Row) -> str:
    verdict = "-" if row.met is None else ("met" if row.met else "**MISSED**")
    return (
        f"| {row.figure} | {row.now or '-'} | {fmt(row.today)} | {fmt(row.new)} | {row.unit} "
        f"| {row.ratio} | {row.target} | {verdict} | {row.note} |"
    )


HEADER = (
    '| figure | issue\'s "now" | today | new | unit | new / today | target | met | note |\n'
    "|---|---|---:|---:|---|---|---|---|---|"
)


def render(report: Report) -> str:
    """docs/benchmarks.md text."""
    out = ["# Benchmarks", ""]
    out += [f"- **{label}:** {value}" for label, value in report.head.items()]
    out += [
        "",
        '"today" is the landed code (the baseline commit, checked out by the harness into a',
        'temporary git worktree), "new" the current tree, both measured in this one run with',
        "the same virtual environment and the same workload through interfaces both trees share",
        "(the CLI, HTTP, the Redis key layout). CPU figures are process CPU seconds (user +",
        "system, from /proc and wait4); ratios against `json.loads` are taken in the same process.",
        "",
        "## Targets",
        "",
        HEADER,
    ]
    out += [_line(r) for r in report.rows]
    if report.extra:
        out += ["", "## Other figures of this run (scale rows and context)", "", HEADER]
        out += [_line(r) for r in report.extra]
    out += ["", "## Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    return "\n".join(out)
