"""Tiny Dice's registry line, registered by the tests that use it (`contracts.games.registered`)."""

from __future__ import annotations

from contracts.games import Game, Label
from tests.thirdgame.contracts import DICE_PAYLOADS

GAME = Game("dice", Label("Tiny Dice", "Кости"), "pips", Label("Pips", "Очки"), DICE_PAYLOADS, "tests.thirdgame.ruleset:RULESET", "tests.thirdgame.simulator:DiceTable")  # fmt: skip
