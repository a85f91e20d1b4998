"""The game registry: one `Game` line per game, the only place a game is named.

A game is one unit: its contracts module (the payload classes, one `*.game_started`), its domain
package (a `domain.ruleset.Ruleset`, named here by import path so that `contracts` stays below
`domain`), its metadata (title and score unit in English and Russian; the category labels are
the ruleset's `categories`) and optionally its simulator. Every surface takes names and labels
from here: the parse union (`contracts.events`), the rulesets (`domain.rulesets`), standings,
the CLI, exports and schema generation. A game outside this package (e.g. a test's) is added with
`register` and removed with `unregister`; listeners (`on_change`) rebuild what depends on the set.
Source: docs/architecture/adding-a-game.md ("a game is one unit").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from contracts.envelope import Payload
from contracts.penumbra import PENUMBRA_PAYLOADS
from contracts.trickerion import TRICKERION_PAYLOADS


@dataclass(frozen=True, slots=True)
class Label:
    """A text in English and Russian."""

    en: str
    ru: str


@dataclass(frozen=True, slots=True)
class Game:
    """One registered game.

    Attributes:
        key: the game key and wire-type prefix (`trickerion` -> `trickerion.advertised`).
        title: the game's name, EN/RU.
        score_unit: the score unit's key (a ledger `resource`, e.g. `fame`) and its label EN/RU.
        payloads: the game's own payload classes (the common `game.*` ones are shared).
        ruleset: `module:attribute` of its `domain.ruleset.Ruleset` value.
        simulator: `module:attribute` of a `(random.Random, game_id, actor, players) -> table`
            factory whose `events()` yields a rule-valid game, or None.
    """

    key: str
    title: Label
    score_unit: str
    score_unit_label: Label
    payloads: tuple[type[Payload], ...]
    ruleset: str
    simulator: str | None = None


GAMES: dict[str, Game] = {}
"""Game key -> game, in registration order."""

Listener = Callable[[Game, bool], None]
_listeners: list[Listener] = []


def on_change(listener: Listener) -> None:
    """Call `listener(game, added)` for every game registered so far and on every later change."""
    _listeners.append(listener)
    for game in GAMES.values():
        listener(game, True)


def register(game: Game) -> None:
    """Add `game` to the registry (its event types parse, its ruleset folds).

    Raises:
        ValueError: a game with that key is already registered.
    """
    if game.key in GAMES:
        raise ValueError(f"game {game.key!r} is already registered")
    GAMES[game.key] = game
    for listener in _listeners:
        listener(game, True)


def unregister(key: str) -> None:
    """Remove a registered game (a test's); its event types no longer parse."""
    game = GAMES.pop(key)
    for listener in _listeners:
        listener(game, False)


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """`register(game)` for the duration of a `with` block (tests)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.key)


def game_info(key: str) -> Game:
    """The registered game `key`.

    Raises:
        KeyError: no such game.
    """
    return GAMES[key]


# The registry: one line per game.
register(Game("trickerion", Label("Trickerion: Legends of Illusion", "Трикерион. Легенды иллюзий"), "fame", Label("Fame", "Слава"), TRICKERION_PAYLOADS, "domain.trickerion:RULESET", "services.simulator.trickerion:TrickerionTable"))  # fmt: skip
register(Game("penumbra", Label("Penumbra: Trials of Arcana", "Пенумбра. Испытания Арканы"), "vp", Label("VP", "ПО"), PENUMBRA_PAYLOADS, "domain.penumbra:RULESET", "services.simulator.penumbra:PenumbraTable"))  # fmt: skip
