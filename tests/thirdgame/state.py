"""Tiny Dice's state: each player's best roll so far."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class DiceState:
    """Each player's best roll so far (0 before their first)."""

    best: Mapping[str, int]
