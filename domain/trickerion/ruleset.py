"""The Trickerion `Ruleset` (domain/ruleset.py): dispatch, game end, provisional, tie-break.

Score unit Fame. Source: docs/rules/trickerion.md (the specification);
docs/rules/trickerion.md for the data and the REC options (contracts.trickerion.TrickerionOptions).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from contracts.common import InitiativeChanged, TurnStarted
from contracts.envelope import Envelope, Payload
from contracts.trickerion import (
    MAX_PLAYERS,
    Advertised,
    CharacterHired,
    EndgameInventoryDeclared,
    LinkCreated,
    PerformanceGiven,
    ResourcesChanged,
    TrickerionGameStarted,
    TrickLearned,
    TrickYielded,
)
from domain.errors import RuleViolation
from domain.ledger import Category, LedgerEntry, Resource
from domain.ruleset import Handler
from domain.trickerion import categories as r
from domain.trickerion import play
from domain.trickerion.endgame import EndLine, academy_points
from domain.trickerion.endlines import Ends, end_lines, score_end
from domain.trickerion.extra_cards import extra_tricks
from domain.trickerion.inventory import inventory_declared, undeclared_level3
from domain.trickerion.join import joined
from domain.trickerion.performance import performance_given, trick_yielded
from domain.trickerion.state import Change, TrickerionState, frozen, settle, start_state, thawed
from domain.trickerion.turns import initiative_changed, turn_started
from domain.values import replace

Entries = tuple[LedgerEntry, ...]

HANDLERS: dict[type[Payload], Handler[TrickerionState]] = {
    Advertised: play.advertise,
    TrickLearned: play.trick_learned,
    CharacterHired: play.character_hired,
    LinkCreated: play.link_created,
    ResourcesChanged: play.resources_changed,
    TrickYielded: trick_yielded,
    PerformanceGiven: performance_given,
    TurnStarted: lambda s, _e, p: (turn_started(s, p), ()),
    InitiativeChanged: lambda s, _e, p: (initiative_changed(s, p), ()),
    EndgameInventoryDeclared: lambda s, _e, p: (inventory_declared(s, p), ()),
}


class TrickerionRuleset:
    """Trickerion: Legends of Illusion scoring (Fame), with the options of `TrickerionOptions`."""

    game = "trickerion"
    started_type = TrickerionGameStarted
    score_resource = Resource.FAME
    categories: tuple[Category, ...] = r.CATEGORIES
    max_players = MAX_PLAYERS  # optional attribute: the most a game seats (the contract's)

    def start(self, event: Envelope) -> tuple[TrickerionState, Entries]:
        """Set-up: starting Fame, Coins by starting initiative position, Shards (3 with Magician
        Powers) (docs/rules/trickerion.md#during-play); or, joining a game in progress, the declared turn,
        track and holdings (`domain.trickerion.join`).

        Raises:
            RuleViolation: `trickerion.setup.players` / `trickerion.setup.initiative`;
                `trickerion.join.*` (see `domain.trickerion.join.joined`).
        """
        payload = event.payload
        assert isinstance(payload, TrickerionGameStarted)
        opts = payload.options
        state = replace(
            start_state(opts, payload.players), extra_tricks=extra_tricks(payload.extra_tricks)
        )
        if payload.joined_in_progress is not None:
            state, joined_changes = joined(state, payload.joined_in_progress)
            return settle(state, event, joined_changes)
        shards = (
            opts.starting_shards_magician_powers if opts.magician_powers else opts.starting_shards
        )
        changes = []
        for pid in state.initiative:
            pos = state.position(pid)
            note = f"set-up at initiative position {pos}"
            changes += [
                Change(pid, Resource.FAME, opts.starting_fame, "start", r.SETUP, note),
                Change(pid, Resource.COINS, opts.starting_coins[pos - 1], "start", r.SETUP, note),
                Change(pid, Resource.SHARDS, shards, "start", r.SETUP, note),
            ]
        return settle(state, event, changes)

    def apply(self, state: TrickerionState, event: Envelope) -> tuple[TrickerionState, Entries]:
        """Apply one in-play event (see `HANDLERS`).

        Raises:
            RuleViolation: the event breaks a rule (state unchanged); `trickerion.event.unknown`
                for another game's event.
        """
        handler = HANDLERS.get(type(event.payload))
        if handler is None:
            raise RuleViolation(
                "trickerion.event.unknown", f"{event.type} is not a Trickerion event", "type"
            )
        return handler(state, event, event.payload)

    handlers: Mapping[type[Payload], Handler[TrickerionState]] = HANDLERS
    """`apply`'s table, for `domain.fold.Folder` to call a handler itself (one call fewer)."""

    # `Ruleset.apply`'s optional pair, for `domain.fold.Folder` (the functions themselves: one
    # call fewer per hand-out than a method calling them)
    owned = staticmethod(thawed)
    frozen = staticmethod(frozen)

    def end(self, state: TrickerionState, event: Envelope) -> tuple[TrickerionState, Entries]:
        """End-game Fame at `game.ended`: after the final turn (7, or 5 without the Dark Alley)
        and once every player has declared an inventory.

        Raises:
            RuleViolation: `trickerion.end.before_final_turn` /
                `trickerion.end.inventory_missing` / `trickerion.end.level3_undeclared` (an
                owned Level 3 trick missing from the inventory, e.g. learned after it; field
                `type`).
        """
        if state.turn < state.final_turn:
            raise RuleViolation(
                "trickerion.end.before_final_turn",
                f"the game ends after turn {state.final_turn} ({r.GAME_LENGTH}), not {state.turn}",
                "type",
            )
        missing = [p.player_id for p in state.players if p.player_id not in state.inventories]
        if missing:
            raise RuleViolation(
                "trickerion.end.inventory_missing",
                f"no end-game inventory from {', '.join(missing)}",
                "type",
            )
        stale = {pid: undeclared_level3(state, inv) for pid, inv in state.inventories.items()}
        stale = {pid: tricks for pid, tricks in stale.items() if tricks}
        if stale:
            raise RuleViolation(
                "trickerion.end.level3_undeclared",
                "Level 3 tricks learned after the inventory: "
                + "; ".join(f"{pid} {', '.join(t)}" for pid, t in stale.items())
                + " (void the inventory and declare again)",
                "type",
            )
        entries = tuple(
            LedgerEntry(
                event.event_id,
                event.seq,
                pid,
                Resource.FAME,
                line.category,
                line.amount,
                line.rule,
                line.note,
            )
            for pid, lines in score_end(state).items()
            for line in lines
        )
        return state, entries

    def provisional(self, state: TrickerionState) -> Mapping[str, Mapping[str, int]]:
        """End-game Fame by category "if the game ended now" (Coins and Shards as they stand;
        hires and tricks until an inventory is declared; see `endgame.holdings`)."""
        return {pid: self.player_provisional(state, pid) for pid in state.books}

    def player_provisional(self, state: TrickerionState, player_id: str) -> Mapping[str, int]:
        """`provisional(state)[player_id]`, kept while the player's end-game lines and Academy
        line stand (domain.memo; the standings ask only for players whose inputs changed)."""
        return _provisional(state, player_id, end_lines(state, player_id))

    def player_parts(
        self, state: TrickerionState, player_id: str
    ) -> tuple[Mapping[str, int], tuple[dict[str, int], list[tuple[str, str, int, str]]]]:
        """(`player_provisional`, `player_details`) of one player from one look at the
        player's end-game lines (domain.standings asks for both when a line is rebuilt)."""
        ends = end_lines(state, player_id)
        return _provisional(state, player_id, ends), ends.details

    def tie_break(self, state: TrickerionState, tied: list[str]) -> tuple[list[str], str]:
        """Most Fame wins; a tie goes to the player ahead in initiative order (lowest position on
        the track as it stands at the end, not recomputed; docs/rules/trickerion.md#winner).

        Returns ([winner], e.g. "Cy is ahead in initiative order (position 1 vs 2)"); the
        standings prefix who tied on how much.
        """
        ordered = sorted(tied, key=state.position)
        positions = " vs ".join(str(state.position(pid)) for pid in ordered)
        winner = ordered[0]
        return [winner], f"{state.name(winner)} is ahead in initiative order (position {positions})"

    def player_details(
        self, state: TrickerionState, player_id: str
    ) -> tuple[dict[str, int], list[tuple[str, str, int, str]]]:
        """Coins and loose Shards now, and one line per Level 3 trick: (trick id,
        `level3_tricks`, Fame if the game ended now, the condition in words) (see
        `endlines.level3_lines`; docs/rules/trickerion.md#level-3): built with the player's
        end lines (`endlines.Ends.details`), the same object while those stand."""
        return end_lines(state, player_id).details  # the holdings' Coins and Shards: the book's

    def player_inputs(
        self, state: TrickerionState, player_id: str
    ) -> tuple[tuple[object, ...], tuple[object, ...]]:
        """What `provisional` and `player_details` read of one player (domain.standings keeps
        the player's line while it is unchanged): by identity the book's tricks and hires,
        every inventory (Academy ranks the Banners of all), the options and declared cards;
        by value the Coins and Shards (not the Fame: the standings take it from the ledger)."""
        fields = state.__dict__  # one read of the frozen dataclass's fields
        try:
            book = fields["books"][player_id]
        except KeyError:
            book = state.book(player_id)  # raises trickerion.player.unknown
        extra = fields["extra_tricks"]
        same = (book.tricks, book.hires, fields["inventories"], fields["options"], extra)
        return same, (book.coins, book.shards)

    def rank_key(self, state: TrickerionState, player_id: str) -> tuple[int, ...] | None:
        """The tie-break as a sort key for ranks (initiative position, lower first) when the
        option `tie_break_ranks` is "ordered"; None keeps tied places shared (the REC)."""
        if state.options.tie_break_ranks != "ordered":
            return None
        return (state.position(player_id),)


def _academy(state: TrickerionState) -> Mapping[str, EndLine]:
    """Every player's Academy line, from the declared Banners (none before an inventory, as
    `endgame.holdings` has it), kept while the inventories stand."""

    def compute() -> Mapping[str, EndLine]:
        banners = {}
        for pid in state.books:
            inv = state.inventories.get(pid)
            banners[pid] = 0 if inv is None else inv.academy_banners
        return academy_points(banners, len(banners), state.options)

    return state.memo.get("academy", (state.inventories, state.options), compute)


def _provisional(state: TrickerionState, player_id: str, ends: Ends) -> Mapping[str, int]:
    """The player's provisional Fame by category from their end-game lines `ends`: the lines'
    own categories, with the Academy line when the module is on (kept while both stand)."""
    if not state.options.academy:
        return ends.categories  # built with the lines
    lines, academy = ends.lines, _academy(state).get(player_id)
    return state.memo.get(
        ("provisional", player_id), (lines,), partial(_by_category, lines, academy), (academy,)
    )


def _by_category(lines: tuple[EndLine, ...], academy: EndLine | None) -> dict[str, int]:
    cats: dict[str, int] = {}
    for line in (*lines, academy) if academy is not None else lines:
        cats[line.category] = cats.get(line.category, 0) + line.amount
    return cats


RULESET = TrickerionRuleset()
