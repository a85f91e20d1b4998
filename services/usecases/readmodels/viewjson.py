"""The standings GET's view as JSON bytes, rendered by the projector once per change (issue 9).

`projection_view_json(result, memo)` is `standings_view(result, "projection")
.model_dump_json(exclude={"checkpoint", "updated_at"})` byte for byte (tests check it through
play, voids and unlabelled categories), without building the view's models: each player's
line is written from its `PlayerStanding` with the labels' constant JSON (one `%`-template of
the breakdown per game and label set, filled with the points) and kept in the game's memo
(`GameState.cache`) while the line is the same object (the standings keep a player's line
while its inputs are unchanged, `domain.standings._lines`) under the same labels. The fields
are joined in `StandingsResponse`'s order. The projector stores the bytes beside the standings
(`ProjectionOp.view_json`); the query service and the SSE hub pass them through. Cost: about
21 µs a change on the simulated games (a standings JSON is about 46, a `standings_view` render
190).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from pydantic_core import to_json

from domain.memo import Memo
from domain.standings import CategoryLabel, PlayerStanding, Standings
from services.usecases.readmodels.labels import category_labels, outcome_text


@dataclass(slots=True)
class _Labels:
    """The constant JSON of a game's label set: per category key `{"key":..,"en":..,"ru":..,
    "endgame":..,"points":`, and the whole breakdown as one `%`-template of the points."""

    keys: tuple[str, ...]
    prefixes: dict[str, bytes]
    breakdown: bytes
    zeros: tuple[int, ...]
    subsets: dict[tuple[str, ...], bytes] = field(default_factory=dict)
    """The template of each subset of the keys a provisional part has shown so far."""

    def template(self, keys: tuple[str, ...]) -> bytes:
        """The `%`-template of the `CategoryPoints` of `keys` (a subset, in label order)."""
        made = self.subsets.get(keys)
        if made is None:
            made = self.subsets[keys] = b",".join(
                self.prefixes[k].replace(b"%", b"%%") + b"%d}" for k in keys
            )
        return made

    @classmethod
    def of(cls, labels: Sequence[CategoryLabel]) -> _Labels:
        prefixes = {
            c.key: to_json({"key": c.key, "en": c.en, "ru": c.ru, "endgame": c.endgame})[:-1]
            + b',"points":'
            for c in labels
        }
        keys = tuple(c.key for c in labels)
        made = cls(keys, prefixes, b"", (0,) * len(keys))
        made.breakdown = made.template(keys)
        return made


def projection_view_json(result: Standings, memo: Memo) -> bytes:
    """The projection view of `result` (see the module docstring); `memo` is the game's."""
    labels = category_labels(result)
    keys = tuple(c.key for c in labels)
    game = memo.get(("readmodels.view_labels",), (), partial(_Labels.of, labels), (keys,))
    lines = b",".join(
        [
            memo.get(
                ("readmodels.view_line", p.player_id), (p,), partial(_line_json, p, game), (keys,)
            )
            for p in result.players
        ]
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


def _line_json(player: PlayerStanding, game: _Labels) -> bytes:
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
        extra = player.provisional.categories
        shown = tuple(k for k in game.keys if k in extra)
        categories = game.template(shown) % tuple(map(extra.__getitem__, shown))
        provisional = b'{"categories":[%b],"total":%d}' % (categories, player.provisional.total)
    tail = to_json({"resources": player.resources, "card_lines": player.card_lines})
    breakdown = game.breakdown % tuple(map(player.categories.get, game.keys, game.zeros))
    return b'%b,"breakdown":[%b],"provisional":%b,%b' % (
        head[:-1],
        breakdown,
        provisional,
        tail[1:],
    )
