"""A tiny DSL that builds Trickerion event envelopes, for tests, the example game and the simulator.

    g = TrickerionGame(["bo", "cy"], academy=True)  # game_started; ids in initiative order
    g.turn()                                         # game.turn_started (next turn, same order)
    g.advertise("bo", coins=1)
    g.to_final_turn(); g.inventory("bo", special_assignments_in_hand=1); ...; g.end()
    g.standings()                                    # domain.standings.standings(fold(g.events))

Every method appends one envelope to `g.events` and returns it. Options are
`contracts.trickerion.TrickerionOptions` fields.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

from contracts.common import (
    EventVoided,
    GameEnded,
    InitiativeChanged,
    Player,
    ScoreCorrected,
    TurnStarted,
)
from contracts.envelope import Envelope, Payload
from contracts.events import ENVELOPE_BY_TYPE
from contracts.trickerion import (
    Advertised,
    CharacterHired,
    EndgameInventoryDeclared,
    Level3Holding,
    LinkCreated,
    PerformanceGiven,
    ResourcesChanged,
    TrickerionGameStarted,
    TrickerionOptions,
    TrickLearned,
    TrickYielded,
)
from domain.fold import GameState, fold
from domain.standings import Standings, standings

T0 = datetime(2026, 11, 30, 19, 0, tzinfo=UTC)


class TrickerionGame:
    """Builds one game's events. `players` are ids in starting initiative order (position 1
    first); names default to the capitalised id; seats follow the list order."""

    def __init__(
        self,
        players: list[str] | tuple[str, ...] = ("p1", "p2"),
        *,
        game_id: str = "trk-1",
        names: dict[str, str] | None = None,
        **options: Any,
    ) -> None:
        self.game_id = game_id
        self.events: list[Envelope] = []
        self.turn_no = 0
        names = names or {}
        seated = tuple(
            Player(
                player_id=pid, name=names.get(pid, pid.capitalize()), seat=i + 1, initiative=i + 1
            )
            for i, pid in enumerate(players)
        )
        self.options = TrickerionOptions(**options)
        self.emit(TrickerionGameStarted(players=seated, options=self.options))

    # -- plumbing -----------------------------------------------------------------------
    def envelope(self, payload: Payload, seq: int | None = None) -> Envelope:
        """An envelope for `payload` at `seq` (default: the next), without appending it."""
        seq = seq if seq is not None else len(self.events) + 1
        return ENVELOPE_BY_TYPE[payload.TYPE](
            event_id=uuid4(),
            game_id=self.game_id,
            seq=seq,
            type=payload.TYPE,
            schema_version=payload.SCHEMA_VERSION,
            occurred_at=T0 + timedelta(seconds=seq),
            actor="test-table",
            payload=payload,
        )

    def emit(self, payload: Payload) -> Envelope:
        """Append the next envelope carrying `payload`."""
        event = self.envelope(payload)
        self.events.append(event)
        return event

    def state(self) -> GameState:
        """`domain.fold.fold` of the events so far."""
        return fold(self.events)

    def standings(self) -> Standings:
        """`domain.standings.standings` of the events so far."""
        return standings(self.state())

    def total(self, player_id: str) -> int:
        """The player's Fame total in the standings."""
        return next(p.total for p in self.standings().players if p.player_id == player_id)

    # -- turns ----------------------------------------------------------------------------
    def turn(self, order: list[str] | None = None) -> Envelope:
        """`game.turn_started` for the next turn (order: ids, position 1 first; None keeps it)."""
        self.turn_no += 1
        return self.emit(
            TurnStarted(turn=self.turn_no, initiative_order=tuple(order) if order else None)
        )

    def to_turn(self, n: int, order: list[str] | None = None) -> None:
        """Start turns until turn `n` is in progress (nothing if it already is); `order` applies
        to turn `n`."""
        while self.turn_no < n:
            self.turn(order if self.turn_no == n - 1 else None)

    def to_final_turn(self, order: list[str] | None = None) -> None:
        """Start turns until the final one (7 with the Dark Alley, else 5) is in progress."""
        self.to_turn(7 if self.options.dark_alley else 5, order)

    def initiative(self, order: list[str], reason: str = "moved on the track") -> Envelope:
        """`game.initiative_changed`."""
        return self.emit(InitiativeChanged(initiative_order=tuple(order), reason=reason))

    # -- Trickerion events ------------------------------------------------------------------
    def advertise(self, player: str, coins: int) -> Envelope:
        """`trickerion.advertised` paying `coins`."""
        return self.emit(Advertised(player_id=player, coins_paid=coins))

    def learn(self, player: str, trick_id: str, coins: int = 0) -> Envelope:
        """`trickerion.trick_learned`."""
        return self.emit(TrickLearned(player_id=player, trick_id=trick_id, coins_paid=coins))

    def hire(self, player: str, character: str, coins: int = 0) -> Envelope:
        """`trickerion.character_hired`."""
        return self.emit(CharacterHired(player_id=player, character=character, coins_paid=coins))  # type: ignore[arg-type]

    def link(
        self, player: str, trick_id: str, other: str, reward: str = "fame", shard: bool = False
    ) -> Envelope:
        """`trickerion.link_created`: `player` links `trick_id` to `other`'s marker."""
        return self.emit(
            LinkCreated(
                player_id=player,
                trick_id=trick_id,
                reward=reward,
                shard_link=shard,
                other_owner_id=other,
            )  # type: ignore[arg-type]
        )

    def yield_(
        self, owner: str, trick_id: str, card: str, weekday: str | None = None, **amounts: int
    ) -> Envelope:
        """`trickerion.trick_yielded` (amounts: fame / coins / shards, optional)."""
        return self.emit(
            TrickYielded(
                owner_id=owner,
                trick_id=trick_id,
                performance_card_id=card,
                weekday=weekday,
                **amounts,
            )  # type: ignore[arg-type]
        )

    def perform(
        self,
        performer: str,
        card: str,
        links: int = 0,
        specialists: tuple[str, ...] = (),
        **bonus: int,
    ) -> Envelope:
        """`trickerion.performance_given` (bonus: bonus_fame / bonus_coins / bonus_shards)."""
        return self.emit(
            PerformanceGiven(
                performer_id=performer,
                performance_card_id=card,
                links=links,
                specialists_behind=specialists,
                **bonus,  # type: ignore[arg-type]
            )
        )

    def change(
        self, player: str, reason: str = "other", note: str | None = None, **amounts: int
    ) -> Envelope:
        """`trickerion.resources_changed` (amounts: fame / coins / shards, signed)."""
        return self.emit(ResourcesChanged(player_id=player, reason=reason, note=note, **amounts))  # type: ignore[arg-type]

    def reach(
        self,
        player: str,
        fame: int | None = None,
        coins: int | None = None,
        shards: int | None = None,
    ) -> Envelope | None:
        """A `resources_changed` (reason `other`) bringing the player's Fame / Coins / Shards to
        the given values (a worked example's "Fame 41; 3 S; 14 C"); None if already there."""
        book = self.state().rules.books[player]
        deltas = {
            "fame": 0 if fame is None else fame - book.fame,
            "coins": 0 if coins is None else coins - book.coins,
            "shards": 0 if shards is None else shards - book.shards,
        }
        if not any(deltas.values()):
            return None
        return self.change(player, "other", "example set-up", **deltas)

    def inventory(
        self, player: str, level3: tuple[tuple[Any, ...], ...] = (), **fields: Any
    ) -> Envelope:
        """`trickerion.endgame_inventory_declared`; `level3` rows are (trick_id, components_met,
        markers) or (..., performance_markers)."""
        holdings = tuple(
            Level3Holding(
                trick_id=row[0],
                components_met=row[1],
                markers=row[2],
                performance_markers=row[3] if len(row) > 3 else 0,
            )
            for row in level3
        )
        return self.emit(
            EndgameInventoryDeclared(player_id=player, level3_tricks=holdings, **fields)
        )

    def declare(
        self, player: str, level3: tuple[tuple[Any, ...], ...] = (), **fields: Any
    ) -> Envelope:
        """An inventory consistent with the log: first hire the characters `fields` declare and
        the log lacks (an Assistant brings one Apprentice, research §3.4 / §5.20), then declare
        `fields` with the characters not given filled in from the hires."""
        have = list(self.state().rules.books[player].hires)
        wanted = [*fields.get("specialists", ()), *fields.get("arcane_workers", ())]
        wanted += ["protege"] if fields.get("protege") else []
        for character in wanted:
            if character in have:
                have.remove(character)
            else:
                self.hire(player, character)
        hires = self.state().rules.books[player].hires
        owned = hires.count("apprentice") + int("assistant" in hires)
        for _ in range(fields.get("apprentices", owned) - owned):
            self.hire(player, "apprentice")
        hires = self.state().rules.books[player].hires
        arcane = ("specter", "golem", "trickster", "shapeshifter")
        filled = {
            "apprentices": hires.count("apprentice") + int("assistant" in hires),
            "specialists": tuple(h for h in hires if h in ("assistant", "manager", "engineer")),
            "protege": "protege" in hires,
            "arcane_workers": tuple(h for h in hires if h in arcane),
        }
        return self.inventory(player, level3, **{**filled, **fields})

    def end(self) -> Envelope:
        """`game.ended`."""
        return self.emit(GameEnded(reason="final turn over"))

    # -- referee --------------------------------------------------------------------------
    def correct(self, player: str, amount: int, category: str = "correction") -> Envelope:
        """`game.score_corrected`."""
        return self.emit(
            ScoreCorrected(
                player_id=player, amount=amount, category=category, reason="miscount", referee="ref"
            )
        )

    def void(self, event: Envelope, reopens_game: bool = False) -> Envelope:
        """`game.event_voided` of `event` (`reopens_game` to void `game.ended`)."""
        return self.emit(
            EventVoided(
                voided_event_id=event.event_id,
                reason="mistake",
                referee="ref",
                reopens_game=reopens_game,
            )
        )


def finish(g: TrickerionGame, **inventories: dict[str, Any]) -> Standings:
    """Play to the final turn, hire what the inventories declare and the log lacks, declare each
    player's inventory (empty if not given), end."""
    g.to_final_turn()
    for player in g.state().rules.books:
        g.declare(player, **inventories.get(player, {}))
    g.end()
    return g.standings()


def categories_of(s: Standings, pid: str) -> dict[str, int]:
    """One player's breakdown in `s`."""
    return next(p.categories for p in s.players if p.player_id == pid)


def total_of(s: Standings, pid: str) -> int:
    """One player's total in `s`."""
    return next(p.total for p in s.players if p.player_id == pid)
