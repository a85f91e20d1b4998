"""A view line cut from the domain line's JSON (`render._line_json` with `text`) renders as
every field rendered anew (`render._line`) did (docs/profiles/fold-event-cost.md, "The standings
render, again"): names, ids and keys that look like the fields cut at, keys in any order, `%` in
a label, card lines."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.details import CardLine
from domain.memo import Memo
from domain.standings import CategoryLabel, PlayerStanding, Provisional, _construct, line_text
from services.usecases.readmodels import render
from services.usecases.readmodels.render import _Labels
from services.usecases.readmodels.shapes import PlayerLine

KEYS = ["start", "resources", "endgame_coins", "level3_tricks", "card_lines", "categories"]
LABELS = [
    CategoryLabel(key=k, en=f'{k} 100% "{i}"', ru="Поправка", endgame=i % 2 == 0)
    for i, k in enumerate(KEYS)
]
TEXT = st.text(alphabet=st.sampled_from(['"', ",", ":", "\\", "a", "Я", "%", " "]), max_size=8)
NAMES = st.one_of(TEXT, st.sampled_from([',"categories":', ',"resources":{}', '"},{"']))
POINTS = st.dictionaries(st.sampled_from(KEYS), st.integers(-5, 60), max_size=6)


def pieces_breakdown(game: _Labels, categories: Mapping[str, int]) -> bytes:
    """`_Labels.breakdown` spelt out: one piece per category."""
    if not game.zeros:
        return b"[]"
    pieces = game.zeros.copy()
    for key, value in categories.items():
        at = game.index[key]
        pieces[at] = game.points[at] % value
    return b",".join(pieces)


def every_field(player: PlayerStanding, game: _Labels) -> bytes:
    """The view line with every field rendered (`render._line`), the breakdown in pieces."""
    provisional = b"null"
    if player.provisional is not None:
        extra = player.provisional.categories
        shown, template, whole = game.provisional(tuple(extra))
        values = tuple(extra.values()) if whole else tuple(map(extra.__getitem__, shown))
        provisional = b'{"categories":[%b],"total":%d}' % (
            template % values,
            player.provisional.total,
        )
    breakdown = pieces_breakdown(game, player.categories)
    return render._line(player, None, breakdown=breakdown, provisional=provisional)


@settings(max_examples=300, deadline=None)
@given(
    name=NAMES,
    player_id=NAMES,
    categories=POINTS,
    extra=st.none() | POINTS,
    resources=st.dictionaries(st.sampled_from(["coins", "resources", "x"]), st.integers(0, 9)),
    cards=st.lists(st.tuples(NAMES, st.sampled_from(KEYS), st.integers(0, 20), NAMES), max_size=3),
)
def test_a_spliced_line_renders_as_every_field(
    name: str,
    player_id: str,
    categories: dict[str, int],
    extra: dict[str, int] | None,
    resources: dict[str, int],
    cards: list[tuple[str, str, int, str]],
) -> None:
    line = _construct(
        PlayerStanding,
        player_id=player_id,
        name=name,
        seat=2,
        rank=1,
        total=7,
        categories=categories,
        provisional=None
        if extra is None
        else _construct(Provisional, categories=extra, total=7 + sum(extra.values())),
        resources=resources,
        card_lines=[CardLine(card_id=c, category=k, points=p, note=n) for c, k, p, n in cards],
    )
    game = _Labels.of(LABELS)
    expected = every_field(line, _Labels.of(LABELS))
    assert render._line_json(line, game, line_text(Memo(), line)) == expected
    assert render._line_json(line, game) == expected  # the line's JSON made here
    assert PlayerLine.model_validate_json(expected).name == name


def test_an_unlabelled_key_still_raises() -> None:
    with pytest.raises(KeyError):
        _Labels.of(LABELS).breakdown({"start": 1, "other": 2})
    assert _Labels.of([]).breakdown({"start": 1}) == b"[]"


def test_the_view_line_is_spliced() -> None:
    assert render._SPLICED  # the fields as `_line_json` cuts them
