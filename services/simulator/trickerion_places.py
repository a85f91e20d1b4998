"""The character placements of a simulated Trickerion table: what a player's character does
on the boards in one turn (learn and hire at the Downtown, Take Coins at the Bank, buy
components at the Market Row, Renovate at the Academy, Special Assignments in the Dark Alley,
Contraptions, and Trick markers set up on the Theater's cards, which may complete Links).

Rules: docs/rules/trickerion.md#during-play. Only placements that move Fame, Coins or Shards
make events; the others change the simulator's own tally (`trickerion_tally.Seat`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

from contracts.envelope import Envelope
from contracts.trickerion import (
    Character,
    CharacterHired,
    LinkCreated,
    ResourcesChanged,
    TrickerionOptions,
    TrickLearned,
)
from domain.trickerion.catalog import Trick
from services.simulator.envelopes import EnvelopeFactory
from services.simulator.trickerion_extras import play_assignment
from services.simulator.trickerion_tally import Seat

RENOVATE = ((5, 7, 9, 2, 5, 9), (3, 4, 6, 1, 3, 6), (6, 8, 10, 4, 7, 10), (4, 5, 11, 1, 3, 13))
"""Academy Renovate spaces: Coins at Fame threshold 1/16/36, then Fame
(docs/rules/trickerion.md#during-play)."""
MAX_TRICKS = 5
"""Four Workshop Trick slots plus the Engineer's extra one
(docs/rules/trickerion.md#during-play)."""


@dataclass(slots=True)
class Stage:
    """A Performance card in the Theater this turn: `placed` markers as (owner, trick)."""

    card_id: str
    slots: int
    links: int
    placed: list[tuple[str, str]] = field(default_factory=list)
    links_formed: int = 0
    shard_link_used: bool = False


class Placements:
    """The placements of one table's players; `TrickerionTable` runs the game around them.

    Attributes (set by the table): `rng` (every choice), `factory` (envelopes), `options`,
    `seats` (the tally per player), `cards` (the table's Trick cards by id), `free_tricks`
    (Trick cards nobody has learnt yet).
    """

    rng: random.Random
    factory: EnvelopeFactory
    options: TrickerionOptions
    seats: list[Seat]
    cards: dict[str, Trick]
    free_tricks: list[Trick]

    def card(self, trick_id: str) -> Trick:
        """A Trick card of this table: the catalog's or one it declared (`extra_tricks`)."""
        return self.cards[trick_id]

    def seat(self, player_id: str) -> Seat:
        """The tally of the player `player_id`."""
        return next(s for s in self.seats if s.player_id == player_id)

    def _choices(self, seat: Seat) -> list[str]:
        """The placements `seat` may draw from (weighted by repetition; the options' boards)."""
        opts = self.options
        choices = ["setup"] * 5 + ["learn", "hire", "bank", "market"]
        if len(seat.tricks) < 2:
            choices += ["learn"] * 4
        if opts.academy:
            choices.append("renovate")
        if opts.dark_alley:
            choices += ["dark_alley"]
        if opts.dawn_of_technology:
            choices.append("contraption")
        return choices

    def _action(self, turn: int, seat: Seat, stages: list[Stage]) -> Iterator[Envelope]:
        """One character placement; only the ones that move Fame, Coins or Shards make events."""
        rng = self.rng
        action = rng.choice(self._choices(seat))
        if action == "setup":
            for _marker in range(self.rng.randint(1, 2)):
                yield from self._setup(seat, stages)
        elif action == "learn":
            yield from self._learn(seat)
        elif action == "hire":
            yield from self._hire(seat)
        elif action == "bank":
            die = rng.randint(1, 6)
            seat.coins += die
            yield self.factory.add(
                ResourcesChanged(
                    player_id=seat.player_id,
                    coins=die,
                    reason="bank",
                    note=f"Take Coins, die {die}",
                )
            )
        elif action == "market":
            yield from self._market(seat)
        elif action == "renovate":
            yield from self._renovate(turn, seat)
        elif action == "dark_alley":
            yield from self._dark_alley(seat)
        else:
            yield from self._contraption(seat)

    def _learn(self, seat: Seat) -> Iterator[Envelope]:
        if len(seat.tricks) >= MAX_TRICKS:
            return
        # below the Fame threshold the learner pays the difference in Coins
        able = [
            t for t in self.free_tricks if max(0, t.threshold - seat.fame) <= min(seat.coins, 3)
        ]
        if not able:
            return
        card = self.rng.choice(able)
        paid = max(0, card.threshold - seat.fame)
        self.free_tricks.remove(card)
        seat.tricks.append(card.id)
        seat.coins -= paid
        yield self.factory.add(
            TrickLearned(player_id=seat.player_id, trick_id=card.id, coins_paid=paid)
        )

    def _hire(self, seat: Seat) -> Iterator[Envelope]:
        opts = self.options
        pool = ["apprentice"] if seat.hires.count("apprentice") < 3 else []
        pool += [s for s in ("assistant", "manager", "engineer") if s not in seat.hires]
        if opts.academy and "protege" not in seat.hires:
            pool.append("protege")
        if opts.arcane_arts:
            pool += [
                w for w in ("specter", "golem", "trickster", "shapeshifter") if w not in seat.hires
            ]
        wage = seat.hires.count("apprentice") + 2 * len(seat.specialists)
        if not pool or len(seat.hires) >= 6 or seat.coins < wage + 4:
            return  # tables plan their wages (unpaid wages are rare)
        character = self.rng.choice(pool)
        seat.hires.append(character)
        yield self.factory.add(
            CharacterHired(player_id=seat.player_id, character=cast(Character, character))
        )

    def _market(self, seat: Seat) -> Iterator[Envelope]:
        tier, price = self.rng.choice((("basic", 1), ("advanced", 2), ("superior", 3)))
        count = self.rng.randint(1, 3)
        if seat.coins < price * count:
            return
        seat.coins -= price * count
        seat.components[tier] += count
        yield self.factory.add(
            ResourcesChanged(
                player_id=seat.player_id,
                coins=-price * count,
                reason="purchase",
                note=f"{count} {tier} component(s)",
            )
        )

    def _renovate(self, turn: int, seat: Seat) -> Iterator[Envelope]:
        tier = 2 if seat.fame >= 36 else 1 if seat.fame >= 16 else 0
        space = self.rng.choice(RENOVATE)
        cost, fame = space[tier], space[3 + tier]
        banners = 4 if turn <= 2 else 3 if turn <= 4 else 2 if turn <= 6 else 1
        if seat.coins < cost or seat.banners + banners > 12:
            return
        seat.coins -= cost
        seat.gain_fame(fame, self.options)
        seat.banners += banners
        yield self.factory.add(
            ResourcesChanged(
                player_id=seat.player_id,
                coins=-cost,
                fame=fame,
                reason="renovate",
                note=f"Renovate: {banners} Banners",
            )
        )

    def _dark_alley(self, seat: Seat) -> Iterator[Envelope]:
        if seat.assignments and self.rng.random() < 0.4:
            name, change = play_assignment(seat, self.rng, self.options)
            if change:
                seat.assignments -= 1
                yield self.factory.add(
                    ResourcesChanged(
                        player_id=seat.player_id, reason="assignment", note=name, **change
                    )
                )
        else:
            seat.assignments += 1

    def _contraption(self, seat: Seat) -> Iterator[Envelope]:
        cost = seat.contraptions  # 1 Coin per Contraption already built
        if seat.coins < cost or seat.contraptions >= 3:
            return
        seat.contraptions += 1
        seat.coins -= cost
        if cost:
            yield self.factory.add(
                ResourcesChanged(
                    player_id=seat.player_id,
                    coins=-cost,
                    reason="contraption",
                    note=f"Contraption #{seat.contraptions}",
                )
            )

    def _setup(self, seat: Seat, stages: list[Stage]) -> Iterator[Envelope]:
        """Place one Trick marker on a card with a free slot; it may complete a Link (the
        placer gains the trick's Level in Fame or Coins; a Shard Link pays each owner 1 Shard)."""
        ready = [t for t, n in seat.markers.items() if n > 0]
        open_stages = [s for s in stages if len(s.placed) < s.slots]
        if not ready or not open_stages:
            return
        trick_id, stage = self.rng.choice(ready), self.rng.choice(open_stages)
        seat.markers[trick_id] -= 1
        neighbours = list(stage.placed)
        stage.placed.append((seat.player_id, trick_id))
        if not neighbours or stage.links_formed >= stage.links or self.rng.random() > 0.6:
            return
        other_owner = self.rng.choice(neighbours)[0]
        shard = not stage.shard_link_used and self.rng.random() < 1 / stage.links
        stage.links_formed += 1
        stage.shard_link_used |= shard
        reward = self.rng.choice(("fame", "coins"))
        level = self.card(trick_id).level
        if reward == "fame":
            seat.gain_fame(level, self.options)
        else:
            seat.coins += level
        if shard:
            owners = {seat.player_id, other_owner}
            if self.options.shard_link_same_owner == "per_marker":
                owners = [seat.player_id, other_owner]  # type: ignore[assignment]
            for owner in owners:
                self.seat(owner).shards += 1
        yield self.factory.add(
            LinkCreated(
                player_id=seat.player_id,
                trick_id=trick_id,
                reward="fame" if reward == "fame" else "coins",
                shard_link=shard,
                other_owner_id=other_owner,
            )
        )
