"""The refusal of a game log under construction: what a test asserts on when the rules must
refuse the last event (domain/errors.py `RuleViolation`: rule, field, message)."""

from __future__ import annotations

from typing import Any, Protocol

import pytest

from domain.errors import RuleViolation


class Folds(Protocol):
    """A game builder (`PenumbraGame`, `TrickerionGame`): folds its events on `state()`."""

    def state(self) -> Any: ...


def violation(game: Folds) -> RuleViolation:
    """The `RuleViolation` that folding `game`'s events raises; the test fails when the fold
    accepts them (or raises anything else)."""
    with pytest.raises(RuleViolation) as caught:
        game.state()
    return caught.value
