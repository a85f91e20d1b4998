"""Figures: repeated samples, their median and spread, a baseline ratio and a target."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Figure:
    """One row of the table.

    `samples` one value per repeat, in `unit`; `target` the goal (None: no target);
    `higher_is_better` for throughputs, False for latencies and sizes; `baseline` the name of
    the same-run baseline and `baseline_value` its median (same unit family, for the ratio).
    """

    item: str
    name: str
    unit: str
    samples: list[float] = field(default_factory=list)
    target: float | None = None
    higher_is_better: bool = True
    baseline: str | None = None
    baseline_value: float | None = None
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def spread(self) -> str:
        if not self.samples:
            return "-"
        return f"{fmt(min(self.samples))}-{fmt(max(self.samples))}"

    @property
    def ratio(self) -> str:
        if not self.samples or not self.baseline_value:
            return "-"
        return f"{self.median / self.baseline_value:.3g}x {self.baseline}"

    @property
    def verdict(self) -> str:
        if self.target is None or not self.samples:
            return "-"
        met = self.median >= self.target if self.higher_is_better else self.median <= self.target
        sign = ">=" if self.higher_is_better else "<="
        return f"{sign} {fmt(self.target)}: {'met' if met else 'MISSED'}"


def fmt(value: float) -> str:
    """A compact number: 1234567 -> 1.23M, 45678 -> 45.7k, 3.14159 -> 3.14."""
    if value != value:  # NaN
        return "-"
    if value in (float("inf"), float("-inf")):
        return "inf"
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of `values`, nearest-rank on the sorted list."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]
