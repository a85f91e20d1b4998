"""A simulated Penumbra table: rounds of Arcana, Trials, Contracts, Tomes, Wounds, Marks and
Goals until a Prophecy triggers, then one more turn each (docs/rules/penumbra.md#end-of-game),
then `game.ended`.

Card data is not published (docs/rules/penumbra.md#categories), so cards get opaque ids (unique per
game: one physical card, EC-23) and plausible printed values. The simulator respects what the
ruleset checks: one reserved Trial at a time (S1), a card in one place, Arcana never spent
beyond the supply, a fulfilment repeating its reservation's printed values, nothing but
`game.ended` after the last final turn. Like real tables it draws every option value, gives
reservations experience and Fate, mostly settles open reservations in the final turn, and has
a referee void a Mark, Tome or Goal now and then and correct a score.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from contracts import penumbra as pen
from contracts.common import EventVoided, GameEnded, Player, ScoreCorrected, TurnStarted
from contracts.envelope import Envelope
from services.simulator.envelopes import EnvelopeFactory

NAMES = ("Ilya", "Jana", "Kostya", "Lena", "Mira", "Nikita", "Olga", "Pavel")
XP_KINDS = pen.EXPERIENCE_KINDS


@dataclass(frozen=True, slots=True)
class Printed:
    """A Contract card's printed values (the reservation's and, repeated, the fulfilment's)."""

    vp: int
    xp: pen.Experience
    light: int
    dark: int


def random_options(rng: random.Random) -> pen.PenumbraOptions:
    """Every option value of `PenumbraOptions` drawn (defaults more often, as at real tables)."""

    def pick(default: object, *others: object) -> object:
        return default if rng.random() < 0.5 else rng.choice(others)

    return pen.PenumbraOptions.model_validate(
        {
            "six_plus_identical": pick("cap", "extrapolate", "chunk"),
            "reserved_contract_penalty": pick("per_contract", "once"),
            "arcana_cap": pick(12, 10, 15),
            "tie_break": pick("shared", "fewer_wounds_then_arcana"),
            "tie_break_ranks": pick("shared", "ordered"),
            "xp_on_unfulfilled": pick(False, True),
            "contract_reservation_required": pick(False, True),
        }
    )


@dataclass(slots=True)
class Wizard:
    """One player as the simulator sees them (enough to stay rule-valid)."""

    player_id: str
    arcana: int = 0
    reserved_trial: str | None = None
    reserved_contracts: list[tuple[str, Printed]] = field(default_factory=list)
    tomes: list[str] = field(default_factory=list)
    wounds: list[str] = field(default_factory=list)
    marks: int = 0
    goals: int = 0


class PenumbraTable:
    """One table's game; iterate `events()` for its envelopes.

    Args:
        rng: the table's random source. game_id / actor: envelope fields.
        players: 1-4 (default 2-4 at random). options: ruleset options (default: drawn by
            `random_options`).
    """

    def __init__(
        self,
        rng: random.Random,
        game_id: str,
        actor: str = "table-sim",
        players: int | None = None,
        options: pen.PenumbraOptions | None = None,
    ) -> None:
        self.rng = rng
        self.factory = EnvelopeFactory(game_id, rng, actor)
        self.options = options if options is not None else random_options(rng)
        self.n = players if players is not None else rng.choice((2, 3, 3, 4, 4))
        self.wizards: list[Wizard] = []
        self.counters: dict[str, int] = {}

    def _card(self, prefix: str) -> str:
        """The next fresh card id of a kind (`TR-3`, `CO-7`, ...)."""
        self.counters[prefix] = self.counters.get(prefix, 0) + 1
        return f"{prefix}-{self.counters[prefix]}"

    def _xp(self) -> pen.Experience:
        kinds = self.rng.sample(XP_KINDS, self.rng.choice((1, 1, 2)))
        return {k: self.rng.choice((1, 1, 2)) for k in kinds}

    def events(self) -> Iterator[Envelope]:
        """Every envelope of the game, from `penumbra.game_started` to `game.ended`."""
        names = self.rng.sample(NAMES, self.n)
        players = tuple(
            Player(player_id=n.lower(), name=n, seat=i + 1) for i, n in enumerate(names)
        )
        self.wizards = [Wizard(p.player_id) for p in players]
        yield self.factory.add(
            pen.PenumbraGameStarted(players=players, options=self.options, title="simulated table")
        )
        trigger_round = self.rng.randint(7, 11)
        for turn in range(1, trigger_round + 1):
            yield self.factory.add(TurnStarted(turn=turn))
            for wizard in self.wizards:
                for _ in range(self.rng.randint(1, 3)):
                    yield from self._action(wizard, turn)
        by = self.rng.choice(self.wizards).player_id
        yield self.factory.add(
            pen.ProphecyTriggered(prophecy_id=f"PR-{self.rng.randint(1, 12)}", by_player=by)
        )
        yield self.factory.add(TurnStarted(turn=trigger_round + 1))
        for wizard in self.wizards:
            for _ in range(self.rng.randint(1, 2)):
                yield from self._action(wizard, trigger_round + 1)
            yield from self._settle_contracts(wizard)
            if wizard.goals == 0 or self.rng.random() < 0.5:
                wizard.goals += 1
                yield from self._maybe_void(
                    self.factory.add(
                        pen.GoalScored(
                            player_id=wizard.player_id,
                            goal_id=self._card("GO"),
                            vp=self.rng.randint(2, 8),
                        )
                    )
                )
            if self.rng.random() < 0.05:
                yield self.factory.add(
                    ScoreCorrected(
                        player_id=wizard.player_id,
                        amount=self.rng.choice((-1, 1, 2)),
                        category="board",
                        reason="miscounted Mark",
                        referee="sim-referee",
                    )
                )
            yield self.factory.add(pen.FinalTurnTaken(player_id=wizard.player_id))
        yield self.factory.add(GameEnded(reason="the Prophecy's final turns are done"))

    def _printed(self) -> Printed:
        rng = self.rng
        xp = self._xp() if rng.random() < 0.8 else {}
        return Printed(rng.randint(2, 7), xp, rng.randint(0, 2), rng.randint(0, 2))

    def _fulfil(self, pid: str, contract: str, card: Printed) -> Envelope:
        return self.factory.add(
            pen.ContractFulfilled(player_id=pid, contract_id=contract, **asdict(card))
        )

    def _settle_contracts(self, w: Wizard) -> Iterator[Envelope]:
        """The final turn: most open reservations are fulfilled, a few dropped, a few left."""
        for contract, card in list(w.reserved_contracts):
            roll = self.rng.random()
            if roll < 0.8:
                w.reserved_contracts.remove((contract, card))
                yield self._fulfil(w.player_id, contract, card)
            elif roll < 0.9:
                w.reserved_contracts.remove((contract, card))
                yield self.factory.add(
                    pen.ContractReservationRemoved(
                        player_id=w.player_id, contract_id=contract, reason="replaced"
                    )
                )

    def _maybe_void(self, event: Envelope) -> Iterator[Envelope]:
        """`event`, then now and then a referee's void of it (nothing later depends on a Mark,
        Tome or Goal the simulator never removes)."""
        yield event
        if self.rng.random() < 0.04:
            yield self.factory.add(
                EventVoided(voided_event_id=event.event_id, reason="misread", referee="sim-ref")
            )

    def _contract_to_fulfil(self, w: Wizard) -> tuple[str, Printed]:
        """The wizard's first reserved contract, else one drawn and printed now."""
        if w.reserved_contracts:
            return w.reserved_contracts.pop(0)
        return self._card("CO"), self._printed()

    def _wound(self, w: Wizard) -> Envelope:
        """Now and then a Mortal Wound healed, else one taken."""
        pid = w.player_id
        if w.wounds and self.rng.random() < 0.3:
            return self.factory.add(
                pen.MortalWoundRemoved(player_id=pid, card_id=w.wounds.pop(), reason="healed")
            )
        w.wounds.append(self._card("MW"))
        return self.factory.add(pen.MortalWoundTaken(player_id=pid, card_id=w.wounds[-1]))

    def _action(self, w: Wizard, turn: int) -> Iterator[Envelope]:
        rng, pid, add = self.rng, w.player_id, self.factory.add
        roll = rng.random()
        if roll < 0.30:
            amount = rng.randint(1, 3)
            w.arcana = min(self.options.arcana_cap, w.arcana + amount)
            yield add(pen.ArcanaGained(player_id=pid, amount=amount, reason="gathered"))
        elif roll < 0.42 and w.arcana:
            amount = rng.randint(1, w.arcana)
            w.arcana -= amount
            yield add(pen.ArcanaSpent(player_id=pid, amount=amount, reason="spell"))
        elif roll < 0.52 and w.reserved_trial is None:
            w.reserved_trial = self._card("TR")
            yield add(pen.TrialReserved(player_id=pid, trial_id=w.reserved_trial))
        elif roll < 0.64:
            trial = w.reserved_trial or self._card("TR")
            w.reserved_trial = None
            yield add(
                pen.TrialCompleted(
                    player_id=pid,
                    trial_id=trial,
                    vp=rng.randint(1, 6),
                    xp=self._xp(),
                    light=rng.randint(0, 2),
                    dark=rng.randint(0, 2),
                )
            )
        elif roll < 0.72 and len(w.reserved_contracts) < 2:
            contract, card = self._card("CO"), self._printed()
            w.reserved_contracts.append((contract, card))
            yield add(pen.ContractReserved(player_id=pid, contract_id=contract, **asdict(card)))
        elif roll < 0.82 and (
            w.reserved_contracts or not self.options.contract_reservation_required
        ):
            contract, card = self._contract_to_fulfil(w)
            yield self._fulfil(pid, contract, card)
        elif roll < 0.88:
            tome = self._card("TO")
            w.tomes.append(tome)
            yield from self._maybe_void(
                add(pen.TomeGained(player_id=pid, tome_id=tome, xp=self._xp()))
            )
        elif roll < 0.92:
            yield self._wound(w)
        elif w.marks < 10:
            w.marks += 1
            yield from self._maybe_void(
                add(
                    pen.MarkPlaced(
                        player_id=pid,
                        slot_id=f"slot-{w.marks}",
                        vp_under=rng.choice((0, 0, 1, 2, 3)),
                        spark=rng.random() < 0.05,
                    )
                )
            )
