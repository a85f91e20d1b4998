"""The pure fold of a league stream: `fold(events, upto_seq) -> LeagueState`.

Rules (a breach raises `RuleViolation`, rule ids `league.*`, `log.*`): the stream starts with
`league.created` (once, of a registered game); seqs follow each other; an addition's results
name each of its players once with competition places (1, 1, 3, ...). Adding a tournament or a
game that is in the league already replaces its results where it stands (its position in the
rating history stays). `counted_once` is the check the use case makes before an addition: a
tournament's table game is never also a single game of the league (`league.counted_twice`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contracts.league import GameAdded, LeagueCreated, LeagueEnvelope, TournamentAdded
from contracts.tournament import ResultLine
from domain.errors import RuleViolation
from domain.stream import StreamFold


@dataclass(frozen=True, slots=True)
class Addition:
    """One tournament (`kind="tournament"`) or single game added, as of its latest event
    (`seq`); `key` is `tournament:<id>` or `game:<id>`."""

    key: str
    kind: str
    source_id: str
    seq: int
    payload: TournamentAdded | GameAdded


@dataclass(slots=True)
class LeagueState:
    """A league after `seq` events: settings, additions in the order first added, player
    names (the latest addition naming a player wins)."""

    league_id: str
    settings: LeagueCreated
    seq: int
    additions: dict[str, Addition] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)


def _check_places(results: tuple[ResultLine, ...], field_name: str) -> None:
    ids = [r.player_id for r in results]
    if len(set(ids)) != len(ids):
        raise RuleViolation("league.result_players", "a player is named twice", field_name)
    places = sorted(r.place for r in results)
    for i, place in enumerate(places):
        if place != (places[i - 1] if i and places[i - 1] == place else i + 1):
            raise RuleViolation(
                "league.result_places", f"places {places} are not competition places", field_name
            )


def counted_once(state: LeagueState, p: TournamentAdded | GameAdded) -> None:
    """Refuse an addition that would count a game twice: a table's game is in the league
    through its tournament, so adding it as a single game too (before or after the tournament)
    would count its points and rate it twice. Checked by the use case before appending, not by
    `apply`, so a stored stream still folds.

    Raises:
        RuleViolation: `league.counted_twice`.
    """
    tables = {
        t.game_id: a.source_id
        for a in state.additions.values()
        if isinstance(a.payload, TournamentAdded)
        for t in a.payload.tables
        if t.game_id is not None
    }
    if isinstance(p, GameAdded) and p.game_id in tables:
        raise RuleViolation(
            "league.counted_twice",
            f"game {p.game_id!r} is a table of tournament {tables[p.game_id]!r}, in the league",
            "game_id",
        )
    if isinstance(p, TournamentAdded):
        for t in p.tables:
            if t.game_id is not None and f"game:{t.game_id}" in state.additions:
                raise RuleViolation(
                    "league.counted_twice",
                    f"round {t.round} table {t.table} is game {t.game_id!r}, in the league",
                    "tournament_id",
                )


def _start(event: LeagueEnvelope) -> LeagueState:
    if not isinstance(event.payload, LeagueCreated):  # the skeleton checked it first
        raise RuleViolation("league.not_created", "the first event must be created", "type")
    return LeagueState(event.league_id, event.payload, 1)


def _step(state: LeagueState, event: LeagueEnvelope) -> None:
    p = event.payload
    if isinstance(p, TournamentAdded):
        for i, table in enumerate(p.tables):
            _check_places(table.results, f"payload.tables[{i}].results")
        key, kind, source = f"tournament:{p.tournament_id}", "tournament", p.tournament_id
    elif isinstance(p, GameAdded):
        _check_places(p.results, "payload.results")
        key, kind, source = f"game:{p.game_id}", "game", p.game_id
    else:
        raise RuleViolation("league.already_created", "the league exists", "type")
    if key not in state.additions and len(state.additions) >= 2000:
        raise RuleViolation("league.too_many", "at most 2000 additions", "payload")
    state.additions[key] = Addition(key, kind, source, event.seq, p)
    state.names.update((pl.player_id, pl.name) for pl in p.players)


_FOLD: StreamFold[LeagueEnvelope, LeagueState] = StreamFold("league", LeagueCreated, _start, _step)
"""The league's fold: the stream skeleton (`domain.stream`) with its own rules."""
fold = _FOLD.fold
"""Fold a league's events from the first, stopping after `upto_seq` when given
(`StreamFold.fold`; raises RuleViolation, `log.empty` for no events)."""
apply = _FOLD.apply
"""`state` after `event`, changed in place (`StreamFold.apply`; raises RuleViolation)."""
