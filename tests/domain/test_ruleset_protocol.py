"""Every registered ruleset is a `Ruleset` of its own state type (checked by mypy on this file,
and at run time), and the registry is the only map from game key to ruleset."""

from __future__ import annotations

from contracts.games import GAMES
from domain.logrules import KINDS
from domain.penumbra import RULESET as PENUMBRA
from domain.penumbra.state import PenumbraState
from domain.ruleset import Ruleset
from domain.rulesets import RULESET_BY_GAME, load_ruleset
from domain.trickerion import RULESET as TRICKERION
from domain.trickerion.ruleset import HANDLERS as TRICKERION_HANDLERS
from domain.trickerion.state import TrickerionState

TYPED_TRICKERION: Ruleset[TrickerionState] = TRICKERION
TYPED_PENUMBRA: Ruleset[PenumbraState] = PENUMBRA


def test_each_registry_line_resolves_to_its_ruleset() -> None:
    assert set(RULESET_BY_GAME) == set(GAMES) >= {"trickerion", "penumbra"}
    for key, game in GAMES.items():
        ruleset = load_ruleset(game.ruleset)
        assert isinstance(ruleset, Ruleset)
        assert ruleset is RULESET_BY_GAME[key]
        assert ruleset.game == key
        assert ruleset.score_resource == game.score_unit
    assert RULESET_BY_GAME["trickerion"] is TYPED_TRICKERION
    assert RULESET_BY_GAME["penumbra"] is TYPED_PENUMBRA


def test_handlers_name_only_the_rulesets_own_events() -> None:
    """A ruleset's optional `handlers` (`domain.fold.Folder` calls them without `apply`) hold
    no start, void, correction or end: the folder checks those itself, and a table holding
    one would skip that check. Trickerion's `apply` reads the very same table."""
    for ruleset in RULESET_BY_GAME.values():
        for cls in getattr(ruleset, "handlers", {}):
            assert KINDS[cls] is None, cls
    assert TRICKERION.handlers is TRICKERION_HANDLERS
