"""The rule ids each event type's checks can raise, per stream (games, tournaments, leagues),
found from the code (`services.rules.reach`) at each `make schemas` and docs build.

The roots of the walk are the folds' own dispatch, read live, so a handler added, moved or
changed is followed without editing this module:

- a game's event: the log order checks every event passes (`domain.logrules`, the start of
  `domain.fold`), then by type: its `*.game_started` -> the ruleset's `start`; `game.ended` ->
  its `end`; `game.score_corrected` -> `domain.logrules.correction_entry`;
  `game.event_voided` -> `domain.logrules.void_target` and the refold's own check; any other
  type -> the ruleset's own `apply` lines and the handler its module's `HANDLERS` table names;
  a type the table lacks (`*`, another game's) -> `apply`'s `if handler is None:` branch;
- a tournament's or league's event: the stream skeleton's own checks (`domain.stream`, as a
  first or a later event), then the created type -> the fold's `start`; any other -> the fold's `step` lines and, where the
  fold module has a `_HANDLERS` table, the handler it names (else all of `step`).

The write doors' checks before the fold (token, body, schema, expected version) are the
routes' (`services.rules.ids`), not an event type's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from contracts.league import LEAGUE_PAYLOADS
from contracts.tournament import TOURNAMENT_PAYLOADS, TableResultReported
from domain import fold, logrules, rulesets, stream
from domain.league import fold as league_fold
from domain.tournament import fold as tournament_fold
from services.rules.reach import misses, reach

OTHER = "*"
"""The `type` of a game's row for an event type its ruleset does not handle (another game's)."""


@dataclass(frozen=True, slots=True)
class EventRules:
    """The rule ids `rules` (sorted) an event of wire type `type` can be refused with, in the
    stream `stream` (`game`, `tournament`, `league`) and, for a game's, the game `game`."""

    stream: str
    game: str | None
    type: str
    rules: tuple[str, ...]


def _handlers(ruleset: object) -> dict[Any, Callable[..., Any]]:
    return dict(getattr(sys.modules[type(ruleset).__module__], "HANDLERS", {}))


def every_game_event() -> set[str]:
    """The log checks every game event passes (`log.*`), before its type's own."""
    return reach([logrules.check_log_order], shallow=[fold.start, rulesets.ruleset_for_started])


def _game(game: str, ruleset: Any) -> Iterator[EventRules]:
    every = every_game_event()
    own = {
        ruleset.started_type.TYPE: reach([ruleset.start]),
        "game.ended": reach([ruleset.end]),
        "game.score_corrected": reach([logrules.correction_entry]),
        "game.event_voided": reach([logrules.void_target], shallow=[fold.Folder._refold]),
    }
    for payload, handler in _handlers(ruleset).items():
        own[payload.TYPE] = reach([handler], shallow=[ruleset.apply])
    own[OTHER] = misses(ruleset.apply)
    for kind, rules in own.items():
        yield EventRules("game", game, kind, tuple(sorted(every | rules)))


def every_stream_event(kind: str) -> set[str]:
    """The skeleton's checks every event of a `kind` stream passes: as a later event (seq,
    stream id, not a second created) and as a first one (`*.not_created`; the first's other
    checks read its created payload, so may list an id only a created event meets)."""
    return reach([], shallow=[stream.StreamFold.apply, stream.StreamFold._open], kind=kind)


EXTRA: dict[type, tuple[Callable[..., Any], ...]] = {
    TableResultReported: (tournament_fold.admit,),
}
"""Checks an append makes before the fold for one type (a rule added after streams were
stored, so a replay skips it); their own lines are read."""


def _stream(module: Any, payloads: tuple[Any, ...]) -> Iterator[EventRules]:
    skeleton = module._FOLD
    kind = skeleton.kind
    table = getattr(module, "_HANDLERS", None)
    later = every_stream_event(kind)
    for payload in payloads:
        if payload is skeleton.created:
            rules = later | reach([skeleton.start], kind=kind)
        elif table is not None:
            roots = [table[payload]] if payload in table else []
            rules = later | reach(roots, shallow=[skeleton.step, *EXTRA.get(payload, ())])
        else:
            rules = later | reach([skeleton.step], shallow=EXTRA.get(payload, ()))
        yield EventRules(kind, None, payload.TYPE, tuple(sorted(rules)))


def event_rules() -> list[EventRules]:
    """Every event type of every registered game, of tournaments and of leagues, with the
    rule ids its checks can raise; games in registry order, then tournaments, leagues."""
    out: list[EventRules] = []
    for game, ruleset in rulesets.RULESET_BY_GAME.items():
        out += _game(game, ruleset)
    out += _stream(tournament_fold, TOURNAMENT_PAYLOADS)
    out += _stream(league_fold, LEAGUE_PAYLOADS)
    return out
