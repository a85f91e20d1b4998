"""Penumbra ruleset (stub: the Penumbra helper replaces this)."""

from __future__ import annotations

from typing import Any

from contracts.envelope import Envelope
from contracts.penumbra import PenumbraGameStarted
from domain.ledger import Category, Resource


class _Stub:
    game = "penumbra"
    started_type = PenumbraGameStarted
    score_resource = Resource.VP
    categories = (Category("arcana", "Arcana", "Аркана"),)

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
