"""Tiny Dice's simulator: 2-4 players roll in turn for 3-6 rounds, then the game ends."""

from __future__ import annotations

import random
from collections.abc import Iterator

from contracts.common import GameEnded, Player
from contracts.envelope import Envelope
from services.simulator.envelopes import EnvelopeFactory
from tests.thirdgame.contracts import DiceGameStarted, DiceRolled


class DiceTable:
    """One table's game; `events()` yields its envelopes in seq order (reproducible from `rng`)."""

    def __init__(self, rng: random.Random, game_id: str, actor: str, players: int | None) -> None:
        self.rng = rng
        self.n = players or rng.randint(2, 4)
        self.factory = EnvelopeFactory(game_id, rng, actor)

    def events(self) -> Iterator[Envelope]:
        """From `dice.game_started` to `game.ended`."""
        seated = tuple(
            Player(player_id=f"p{i}", name=f"P{i}", seat=i) for i in range(1, self.n + 1)
        )
        yield self.factory.add(DiceGameStarted(players=seated))
        for _ in range(self.rng.randint(3, 6)):
            for p in seated:
                yield self.factory.add(
                    DiceRolled(player_id=p.player_id, pips=self.rng.randint(1, 6))
                )
        yield self.factory.add(GameEnded(reason="last round rolled"))
