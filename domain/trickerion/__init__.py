"""Trickerion ruleset (stub: the Trickerion helper replaces this)."""

from __future__ import annotations

from typing import Any

from contracts.envelope import Envelope
from contracts.trickerion import TrickerionGameStarted
from domain.ledger import Category, Resource


class _Stub:
    game = "trickerion"
    started_type = TrickerionGameStarted
    score_resource = Resource.FAME
    categories = (Category("advertise", "Advertise", "Реклама"),)

    def start(self, event: Envelope) -> tuple[Any, tuple]:
        return None, ()

    def apply(self, state: Any, event: Envelope) -> tuple[Any, tuple]:
        return state, ()

    def end(self, state: Any, event: Envelope) -> tuple[Any, tuple]:
        return state, ()

    def provisional(self, state: Any) -> dict:
        return {}

    def tie_break(self, state: Any, tied: list[str]) -> tuple[list[str], str]:
        return tied, "shared"


RULESET = _Stub()
