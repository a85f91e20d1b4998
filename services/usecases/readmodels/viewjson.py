"""The standings GET's view as JSON bytes, rendered by the projector once per change (issue 9).

`projection_view_json(result, memo)` is `standings_view(result, "projection")
.model_dump_json(exclude={"checkpoint", "updated_at"})` byte for byte (tests check it through
play, voids and unlabelled categories), without building the view's models: each player's
line is written from its `PlayerStanding` with the labels' constant JSON (`{"key":..,"en":..,
"ru":..,"endgame":..,"points":` once per game and label set) and kept in the game's memo
(`GameState.cache`) while the line is the same object (the standings keep a player's line
while its inputs are unchanged, `domain.standings._lines`) under the same labels. The fields
are joined in `StandingsResponse`'s order. The projector stores the bytes beside the standings
(`ProjectionOp.view_json`); the query service and the SSE hub pass them through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from pydantic_core import to_json

from domain.memo import Memo
from domain.standings import CategoryLabel, PlayerStanding, Standings
from services.usecases.readmodels.labels import category_labels, outcome_text

_Prefixes = dict[str, bytes]
"""category key -> `{"key":..,"en":..,"ru":..,"endgame":..,"points":` of its label."""


def projection_view_json(result: Standings, memo: Memo) -> bytes:
    """The projection view of `result` (see the module docstring); `memo` is the game's."""
    labels = category_labels(result)
    keys = tuple(c.key for c in labels)
    prefixes = memo.get(("readmodels.view_labels",), (), partial(_prefixes, labels), (keys,))
    lines = b",".join(
        memo.get(
            ("readmodels.view_line", p.player_id),
            (p,),
            partial(_line_json, p, keys, prefixes),
            (keys,),
        )
        for p in result.players
    )
    head = to_json(
        {
            "game_id": result.game_id,
            "game": result.game,
            "status": result.status,
            "seq": result.seq,
            "score_unit": result.score_unit,
        }
    )
    tail = to_json(
        {
            "winner": result.winner,
            "winners": result.winners,
            "tie_break": result.tie_break,
            "result": outcome_text(result) or None,
            "source": "projection",
            "title": result.title,
            "score_unit_label": result.score_unit_label,
        }
    )
    return b"".join((head[:-1], b',"players":[', lines, b"],", tail[1:]))


def _prefixes(labels: Sequence[CategoryLabel]) -> _Prefixes:
    return {
        c.key: to_json({"key": c.key, "en": c.en, "ru": c.ru, "endgame": c.endgame})[:-1]
        + b',"points":'
        for c in labels
    }


def _points(keys: Sequence[str], prefixes: _Prefixes, points: Mapping[str, int]) -> bytes:
    """`CategoryPoints` of `keys` (0 where `points` has none), comma-joined."""
    get = points.get
    return b",".join([b"%b%d}" % (prefixes[k], get(k, 0)) for k in keys])


def _line_json(player: PlayerStanding, keys: Sequence[str], prefixes: _Prefixes) -> bytes:
    """`PlayerLine` JSON of `player` (`views._player_line`, serialized)."""
    head = to_json(
        {
            "player_id": player.player_id,
            "name": player.name,
            "seat": player.seat,
            "rank": player.rank,
            "total": player.total,
        }
    )
    provisional = b"null"
    if player.provisional is not None:
        shown = [k for k in keys if k in player.provisional.categories]
        categories = _points(shown, prefixes, player.provisional.categories)
        provisional = b'{"categories":[%b],"total":%d}' % (categories, player.provisional.total)
    tail = to_json({"resources": player.resources, "card_lines": player.card_lines})
    breakdown = _points(keys, prefixes, player.categories)
    return b'%b,"breakdown":[%b],"provisional":%b,%b' % (
        head[:-1],
        breakdown,
        provisional,
        tail[1:],
    )
