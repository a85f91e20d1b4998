"""The registry of game rulesets, keyed by game and by `*.game_started` wire type."""

from __future__ import annotations

from domain.errors import RuleViolation
from domain.penumbra import RULESET as PENUMBRA
from domain.ruleset import Ruleset
from domain.trickerion import RULESET as TRICKERION

RULESET_BY_GAME: dict[str, Ruleset] = {r.game: r for r in (TRICKERION, PENUMBRA)}
_BY_STARTED_TYPE: dict[str, Ruleset] = {r.started_type.TYPE: r for r in RULESET_BY_GAME.values()}


def ruleset_for_started(started_type: str) -> Ruleset:
    """The ruleset whose game-started wire type is `started_type`.

    Raises:
        RuleViolation: `log.unknown_game` for a type no ruleset starts.
    """
    try:
        return _BY_STARTED_TYPE[started_type]
    except KeyError:
        raise RuleViolation(
            "log.unknown_game", f"no ruleset starts with {started_type}", "type"
        ) from None
