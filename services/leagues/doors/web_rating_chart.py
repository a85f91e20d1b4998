"""A player's rating over time as an inline SVG line (no script, no chart library): the rating's
ordinal (mu - 3 sigma) before the first rated game, then after each, left to right. The SVG
scales to its box (`viewBox`, width 100%), so it never overflows a phone; it is an image with a
title and a one-line description (screen readers), and the rating table beside it holds every
figure. Rule source: docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH, HEIGHT = 600, 220
LEFT, RIGHT, TOP, BOTTOM = 60, 16, 16, 38
"""The plot's margins inside the viewBox: room for the axis labels."""

WORDS = {
    "en": {
        "title": "Rating over time",
        "desc": "Rating after each of {n} games: from {first} to {last}, lowest {low}, highest {high}.",
        "start": "start",
        "game": "game {n}",
    },
    "ru": {
        "title": "Рейтинг во времени",
        "desc": "Рейтинг после каждой из {n} партий: от {first} до {last}, минимум {low}, максимум {high}.",
        "start": "начало",
        "game": "партия {n}",
    },
}
"""The chart's words, per language."""


def _points(values: list[float]) -> list[tuple[float, float]]:
    """Each value's (x, y) in the plot (y grows downwards; one value sits in the middle)."""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = width / max(1, len(values) - 1)
    return [
        (LEFT + i * step, TOP + height * (1 - ((v - low) / span if high > low else 0.5)))
        for i, v in enumerate(values)
    ]


def rating_chart(rating: list[dict[str, Any]], lang: str = "en") -> str:
    """The SVG of the ordinals in `rating` (the player record's steps, each with `before` and
    `after`); "" when the player has no rated game."""
    if not rating:
        return ""
    w = WORDS[lang]
    values = [float(rating[0]["before"]["ordinal"])] + [
        float(s["after"]["ordinal"]) for s in rating
    ]
    points = _points(values)
    low, high = min(values), max(values)
    desc = w["desc"].format(
        n=len(rating), first=f"{values[0]:.1f}", last=f"{values[-1]:.1f}",
        low=f"{low:.1f}", high=f"{high:.1f}",
    )  # fmt: skip
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4"/>' for x, y in points)
    y_top, y_bottom = min(y for _, y in points), max(y for _, y in points)
    axis_y = HEIGHT - BOTTOM + 22
    last = w["game"].format(n=len(rating))
    lowest = (
        f'<text x="{LEFT - 8}" y="{y_bottom + 5:.1f}" text-anchor="end" font-size="18" '
        f'fill="currentColor">{low:.1f}</text>'
        if high > low
        else ""  # a flat line: one label
    )
    return f"""<svg id="player-chart" class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" aria-labelledby="player-chart-title player-chart-desc" preserveAspectRatio="xMidYMid meet">
  <title id="player-chart-title">{escape(w["title"])}</title>
  <desc id="player-chart-desc">{escape(desc)}</desc>
  <line x1="{LEFT}" y1="{HEIGHT - BOTTOM + 6}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM + 6}" stroke="currentColor" stroke-opacity=".35"/>
  <text x="{LEFT - 8}" y="{y_top + 5:.1f}" text-anchor="end" font-size="18" fill="currentColor">{high:.1f}</text>
  {lowest}
  <text x="{LEFT}" y="{axis_y}" font-size="18" fill="currentColor">{escape(w["start"])}</text>
  <text x="{WIDTH - RIGHT}" y="{axis_y}" text-anchor="end" font-size="18" fill="currentColor">{escape(last)}</text>
  <polyline points="{line}" fill="none" stroke="#5b3391" stroke-width="3" stroke-linejoin="round"/>
  <g fill="#5b3391">{dots}</g>
</svg>"""
