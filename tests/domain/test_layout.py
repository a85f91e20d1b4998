"""Every game's domain package has the shared module layout (docs/architecture/adding-a-game.md): the same
module names in every game, the in-play handlers in one `HANDLERS` table. Source: docs/architecture/adding-a-game.md
("a game is one unit: ... the same module names and handler shape in every game").
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from contracts.games import GAMES, Game
from tests.thirdgame.game import GAME as DICE

REQUIRED = ("state", "play", "categories", "ruleset")
"""Modules every game has; `turns`, `join` and `endgame` exist where the game has those rules."""

LAYOUT = {
    "trickerion": {*REQUIRED, "turns", "join", "endgame"},
    "penumbra": {*REQUIRED, "turns", "join"},
    "dice": {*REQUIRED, "endgame"},
}


def _package(ruleset_path: str) -> str:
    module = ruleset_path.split(":")[0]
    return module.removesuffix(".ruleset")


@pytest.mark.parametrize("game", [*GAMES.values(), DICE], ids=lambda g: g.key)
def test_game_package_has_the_shared_module_layout(game: Game) -> None:
    key, package = game.key, _package(game.ruleset)
    present = {m for m in LAYOUT[key] if importlib.util.find_spec(f"{package}.{m}") is not None}
    assert present == LAYOUT[key], f"{package} lacks {sorted(LAYOUT[key] - present)}"
    handlers = importlib.import_module(f"{package}.ruleset").HANDLERS
    assert handlers
    assert all(isinstance(t, type) for t in handlers)


def test_every_registered_game_has_a_documented_layout() -> None:
    assert set(GAMES) <= set(LAYOUT)
