"""A view line's provisional part, its labelled keys kept per key tuple (`_Labels.provisional`),
renders as the keys sorted into label order on every line did (docs/profiles/fold-event-cost.md,
"The standings render"): keys in any order, some not labelled, the same key tuple again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.standings import CategoryLabel, PlayerStanding, Provisional, _construct
from services.usecases.readmodels import render
from services.usecases.readmodels.render import _Labels

LABELS = [
    CategoryLabel(key=k, en=k.title(), ru=k, endgame=i % 2 == 0)
    for i, k in enumerate(["start", "endgame_shards", "endgame_coins", "level3_tricks", "academy"])
]
KEYS = st.sampled_from([c.key for c in LABELS] + ["unlabelled", "other"])


def general_line(player: PlayerStanding, game: _Labels) -> bytes:
    """`render._line_json` as written before the kept key tuples."""
    provisional = b"null"
    if player.provisional is not None:
        extra, index = player.provisional.categories, game.index
        shown = tuple(sorted(filter(index.__contains__, extra), key=index.__getitem__))
        categories = game.template(shown) % tuple(map(extra.__getitem__, shown))
        provisional = b'{"categories":[%b],"total":%d}' % (categories, player.provisional.total)
    return render._line(
        player, None, breakdown=game.breakdown(player.categories), provisional=provisional
    )


def line_of(parts: dict[str, int]) -> PlayerStanding:
    return _construct(
        PlayerStanding,
        player_id="ann",
        name="Ann",
        seat=1,
        rank=1,
        total=7,
        categories={"start": 7},
        provisional=_construct(Provisional, categories=parts, total=7 + sum(parts.values())),
        resources={},
        card_lines=[],
    )


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.dictionaries(KEYS, st.integers(-5, 60), max_size=7), min_size=1))
def test_provisional_keys_kept_render_as_sorted_each_time(parts: list[dict[str, int]]) -> None:
    game = _Labels.of(LABELS)  # one label set across the lines, as a game's
    for part in parts + parts:  # each key tuple met again
        line = line_of(part)
        assert render._line_json(line, game) == general_line(line, _Labels.of(LABELS))
