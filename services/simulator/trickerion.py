"""A simulated Trickerion table: a full, rule-valid game from the real card catalog.

Turn structure (docs/rules/trickerion.md#during-play, 'Resolution order within a turn'): the initiative
track by ascending Fame, Advertise at most once per player in initiative order, character
placements (learn, hire, Bank, Market Row, Academy, Dark Alley, setting up Trick markers that
may complete Links), Performance Thursday -> Sunday (each trick's yield to its owner first, then
the performer's bonuses), End Turn wages. After the final turn (7 with the Dark Alley, else 5)
each player declares the end-game inventory, then `game.ended`. Cards: contracts/catalogue/trickerion.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import cast

from contracts.common import (
    EventVoided,
    GameEnded,
    InitiativeChanged,
    Player,
    ScoreCorrected,
    TurnStarted,
)
from contracts.envelope import Envelope
from contracts.trickerion import (
    Advertised,
    ArcaneWorker,
    EndgameInventoryDeclared,
    Level3Holding,
    PerformanceGiven,
    ResourcesChanged,
    Specialist,
    TrickerionGameStarted,
    TrickerionOptions,
    TrickYielded,
    Weekday,
)
from domain.trickerion.catalog import performances, tricks
from domain.trickerion.extra_cards import extra_tricks
from services.simulator.envelopes import EnvelopeFactory
from services.simulator.trickerion_extras import (
    extra_for,
    random_options,
    swapped,
)
from services.simulator.trickerion_places import Placements, Stage
from services.simulator.trickerion_tally import Seat, initiative_order

NAMES = ("Alma", "Bruno", "Clara", "Dmitri", "Edda", "Farid", "Greta", "Hugo")
WEEKDAYS = ("thursday", "friday", "saturday", "sunday")
WEEKDAY_MODIFIER = {"thursday": -1, "friday": 0, "saturday": 0, "sunday": 1}
"""Per-owner Fame and Coin yield modifier (docs/rules/trickerion.md#during-play), only with the option."""


class TrickerionTable(Placements):
    """One table's game; iterate `events()` for its envelopes (lazily, in seq order).

    Args:
        rng: the table's random source (all choices).
        game_id / actor: envelope fields.
        players: 1-4 (default: 2-4 at random).
        options: modules and RECs (default: `random_options`).
    """

    def __init__(
        self,
        rng: random.Random,
        game_id: str,
        actor: str = "table-sim",
        players: int | None = None,
        options: TrickerionOptions | None = None,
    ) -> None:
        self.rng = rng
        self.factory = EnvelopeFactory(game_id, rng, actor)
        self.options = options if options is not None else random_options(rng)
        self.n = players if players is not None else rng.choice((2, 3, 3, 4, 4, 4))
        self.seats: list[Seat] = []
        self.order: list[str] = []
        self.extra = extra_for(rng, self.options)
        self.cards = {**tricks(), **extra_tricks(self.extra)}
        self.free_tricks = [
            t for t in self.cards.values() if t.level < 3 or self.options.dark_alley
        ]
        self.deck = [
            p for p in performances().values() if self.options.dark_alley or not p.dark_alley_only
        ]

    def events(self) -> Iterator[Envelope]:
        """Every envelope of the game, from `trickerion.game_started` to `game.ended`."""
        yield self._start()
        final = 7 if self.options.dark_alley else 5
        for turn in range(1, final + 1):
            yield from self._turn(turn)
        for seat in self.seats:
            yield self.factory.add(self._inventory(seat))
        yield self.factory.add(GameEnded(reason=f"end of turn {final}"))

    # --- set-up -------------------------------------------------------------------------
    def _start(self) -> Envelope:
        rng, opts = self.rng, self.options
        names = rng.sample(NAMES, self.n)
        initiative = rng.sample(range(1, self.n + 1), self.n)
        players = tuple(
            Player(player_id=name.lower(), name=name, seat=i + 1, initiative=initiative[i])
            for i, name in enumerate(names)
        )
        shards = (
            opts.starting_shards_magician_powers if opts.magician_powers else opts.starting_shards
        )
        self.seats = [
            Seat(
                p.player_id,
                opts.starting_fame,
                opts.starting_coins[(p.initiative or 1) - 1],
                shards,
            )
            for p in players
        ]
        self.order = [p.player_id for p in sorted(players, key=lambda p: p.initiative or 0)]
        return self.factory.add(
            TrickerionGameStarted(
                players=players, options=opts, title="simulated table", extra_tricks=self.extra
            )
        )

    # --- one turn -----------------------------------------------------------------------
    def _turn(self, turn: int) -> Iterator[Envelope]:
        if turn > 1:
            self.order = initiative_order(self.seats, self.order)
        yield self.factory.add(TurnStarted(turn=turn, initiative_order=tuple(self.order)))
        yield from self._advertise()
        if len(self.order) > 1 and self.rng.random() < 0.15:
            self.order = swapped(self.order, self.rng)
            yield self.factory.add(
                InitiativeChanged(initiative_order=tuple(self.order), reason="moved on the track")
            )
        yield from self._referee(turn)
        self._reset_markers()
        stages = [Stage(c.id, c.slots, c.links) for c in self.rng.sample(self.deck, 4)]
        for _round in range(self.rng.randint(3, 5)):
            for pid in self.order:
                yield from self._action(turn, self.seat(pid), stages)
        for day, stage in zip(WEEKDAYS, stages, strict=True):
            if stage.placed and self.rng.random() < 0.9:
                yield from self._perform(day, stage)
        for seat in self.seats:
            yield from self._wages(seat)

    def _advertise(self) -> Iterator[Envelope]:
        """Each player in initiative order may Advertise (pays its position in Coins, 2 Fame)."""
        for position, pid in enumerate(self.order, 1):
            seat = self.seat(pid)
            if seat.coins >= position and self.rng.random() < 0.45:
                seat.coins -= position
                seat.gain_fame(2, self.options)
                yield self.factory.add(Advertised(player_id=pid, coins_paid=position))

    def _reset_markers(self) -> None:
        """Every learnt trick's markers for the turn (one more with an Engineer hired)."""
        for seat in self.seats:
            seat.markers = {
                t: self.card(t).markers + (1 if "engineer" in seat.hires else 0)
                for t in seat.tricks
            }

    def _referee(self, turn: int) -> Iterator[Envelope]:
        """Now and then a referee: a mistaken Take Coins (never in the tally) voided at once, or
        a score correction (corrections are not in the ruleset's books, so nothing depends)."""
        rng = self.rng
        if rng.random() < 0.12:
            seat = rng.choice(self.seats)
            wrong = self.factory.add(
                ResourcesChanged(
                    player_id=seat.player_id, coins=rng.randint(1, 6), reason="bank", note="typo"
                )
            )
            yield wrong
            yield self.factory.add(
                EventVoided(voided_event_id=wrong.event_id, reason="wrong player", referee="ref")
            )
        if rng.random() < 0.08:
            yield self.factory.add(
                ScoreCorrected(
                    player_id=rng.choice(self.seats).player_id,
                    amount=rng.choice((-2, -1, 1, 2)),
                    reason=f"recount in turn {turn}",
                    referee="ref",
                )
            )

    def _perform(self, day: str, stage: Stage) -> Iterator[Envelope]:
        modifiers = self.options.weekday_yield_modifiers
        for owner_id, trick_id in stage.placed:
            printed = self.card(trick_id).yield_
            mod = WEEKDAY_MODIFIER[day] if modifiers else 0
            fame, coins = max(0, printed.fame + mod), max(0, printed.coins + mod)
            owner = self.seat(owner_id)
            owner.gain_fame(fame, self.options)
            owner.coins += coins
            owner.shards += printed.shards
            yield self.factory.add(
                TrickYielded(
                    owner_id=owner_id,
                    trick_id=trick_id,
                    performance_card_id=stage.card_id,
                    weekday=cast(Weekday, day) if modifiers else None,
                    fame=fame,
                    coins=coins,
                    shards=printed.shards,
                )
            )
        performer = self.seat(self.rng.choice(self.order))
        behind = tuple(s for s in performer.specialists if self.rng.random() < 0.5)
        bonus = performances()[stage.card_id].bonus
        performer.gain_fame(
            stage.links_formed + bonus.fame + 2 * ("assistant" in behind), self.options
        )
        performer.coins += bonus.coins + 3 * ("manager" in behind)
        performer.shards += bonus.shards + ("engineer" in behind)
        yield self.factory.add(
            PerformanceGiven(
                performer_id=performer.player_id,
                performance_card_id=stage.card_id,
                links=stage.links_formed,
                specialists_behind=cast(tuple[Specialist, ...], behind),
                bonus_fame=bonus.fame,
                bonus_coins=bonus.coins,
                bonus_shards=bonus.shards,
            )
        )

    def _wages(self, seat: Seat) -> Iterator[Envelope]:
        """End Turn: 1 Coin per Apprentice, 2 per Specialist; Arcane wages: Specter/Golem 1
        Shard or -4 Fame, Trickster/Shapeshifter 1 Coin (docs/rules/trickerion.md#during-play)."""
        wage = seat.hires.count("apprentice") + 2 * len(seat.specialists)
        if seat.coins < wage and self.rng.random() < 0.9:
            short = wage - seat.coins
            seat.coins += short
            yield self.factory.add(
                ResourcesChanged(
                    player_id=seat.player_id, coins=short, reason="bank", note="Take Coins"
                )
            )
        if wage:
            seat.pay_wages(wage, self.options)
            yield self.factory.add(
                ResourcesChanged(
                    player_id=seat.player_id,
                    coins=-wage,
                    reason="wages",
                    note=f"wages for {len(seat.hires)} characters",
                )
            )
        for worker in (
            h for h in seat.hires if h in ("specter", "golem", "trickster", "shapeshifter")
        ):
            if worker in ("specter", "golem"):
                if seat.shards:
                    seat.shards -= 1
                    change = {"shards": -1}
                else:
                    seat.gain_fame(-4, self.options)
                    change = {"fame": -4}
            elif seat.coins:
                seat.coins -= 1
                change = {"coins": -1}
            else:
                continue
            yield self.factory.add(
                ResourcesChanged(
                    player_id=seat.player_id,
                    reason="arcane_wages",
                    note=f"{worker} upkeep",
                    **change,
                )
            )

    # --- the end ------------------------------------------------------------------------
    def _inventory(self, seat: Seat) -> EndgameInventoryDeclared:
        rng, opts = self.rng, self.options
        level3 = tuple(
            Level3Holding(
                trick_id=t,
                components_met=rng.random() < 0.6,
                markers=rng.randint(0, min(2, self.card(t).markers)),
            )
            for t in seat.tricks
            if self.card(t).level == 3
        )
        arcane = tuple(
            h for h in seat.hires if h in ("specter", "golem", "trickster", "shapeshifter")
        )
        return EndgameInventoryDeclared(
            player_id=seat.player_id,
            special_assignments_in_hand=min(seat.assignments, 4) if opts.dark_alley else 0,
            apprentices=seat.apprentices,
            specialists=cast(tuple[Specialist, ...], tuple(seat.specialists)),
            protege="protege" in seat.hires,
            arcane_workers=cast(tuple[ArcaneWorker, ...], arcane),
            shapeshifter_as=rng.choice(("apprentice", "manager"))
            if "shapeshifter" in arcane
            else None,
            level3_tricks=level3,
            workshop_trick_markers=rng.randint(0, len(seat.tricks)),
            basic_components=seat.components["basic"],
            advanced_components=seat.components["advanced"],
            superior_components=seat.components["superior"],
            academy_banners=seat.banners if opts.academy else 0,
            contraption_shards=rng.randint(0, seat.contraptions) if opts.dawn_of_technology else 0,
            arcane_shards=rng.randint(0, 2) if opts.arcane_arts else 0,
        )
