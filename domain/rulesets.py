"""The rulesets of the registered games (`contracts.games`), by game key and `*.game_started` type.

Each game's registry line names its ruleset by import path (`domain.trickerion:RULESET`); it is
imported here when the game is registered, so adding a game touches no file of this package.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from contracts import games
from domain.errors import RuleViolation
from domain.ruleset import Ruleset

RULESET_BY_GAME: dict[str, Ruleset[Any]] = {}
"""Game key -> ruleset (each game's state type is its own, hence `Any` in this one map)."""
_BY_STARTED_TYPE: dict[str, Ruleset[Any]] = {}


def load_ruleset(path: str) -> Ruleset[Any]:
    """The `Ruleset` at `module:attribute`.

    Raises:
        TypeError: the object there is not a `Ruleset`.
    """
    module, _, name = path.partition(":")
    ruleset = getattr(import_module(module), name)
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"{path} is not a Ruleset")
    return ruleset


def _game_changed(game: games.Game, added: bool) -> None:
    if not added:
        ruleset = RULESET_BY_GAME.pop(game.key)
        _BY_STARTED_TYPE.pop(ruleset.started_type.TYPE, None)
        return
    ruleset = load_ruleset(game.ruleset)
    if ruleset.game != game.key or ruleset.score_resource != game.score_unit:
        raise TypeError(f"{game.ruleset} does not match the registry line of {game.key!r}")
    RULESET_BY_GAME[game.key] = ruleset
    _BY_STARTED_TYPE[ruleset.started_type.TYPE] = ruleset


games.on_change(_game_changed)


def ruleset_for_game(game: str) -> Ruleset[Any]:
    """The ruleset of the registered game `game`.

    Raises:
        RuleViolation: `log.unknown_game` for a game not registered.
    """
    try:
        return RULESET_BY_GAME[game]
    except KeyError:
        raise RuleViolation("log.unknown_game", f"no game {game!r} is registered", "game") from None


def ruleset_for_started(started_type: str) -> Ruleset[Any]:
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
