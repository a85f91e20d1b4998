"""Table sizes: as many 4-player tables as possible, the rest of 3; 5 or a bye only when asked."""

from __future__ import annotations

import pytest

from domain.tournament.tables import SeatingError, layout


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (3, (3,)),
        (4, (4,)),
        (6, (3, 3)),
        (7, (4, 3)),
        (8, (4, 4)),
        (9, (3, 3, 3)),
        (12, (4, 4, 4)),
        (13, (4, 3, 3, 3)),
        (14, (4, 4, 3, 3)),
        (15, (4, 4, 4, 3)),
        (30, (4,) * 6 + (3, 3)),
        (60, (4,) * 15),
    ],
)
def test_as_many_fours_as_possible_then_threes(players: int, sizes: tuple[int, ...]) -> None:
    got = layout(players)
    assert got.sizes == sizes
    assert got.byes == 0


def test_five_players_need_a_configured_five_table_or_bye() -> None:
    with pytest.raises(SeatingError) as refused:
        layout(5)
    assert refused.value.rule == "seating.five_players"
    assert layout(5, "fives").sizes == (5,)
    assert (layout(5, "byes").sizes, layout(5, "byes").byes) == ((4,), 1)


def test_fives_and_byes_only_change_a_4k_plus_1_head_count() -> None:
    assert layout(13, "fives").sizes == (5, 4, 4)
    assert (layout(13, "byes").sizes, layout(13, "byes").byes) == ((4, 4, 4), 1)
    assert layout(14, "fives").sizes == layout(14, "byes").sizes == (4, 4, 3, 3)


@pytest.mark.parametrize("players", [0, 1, 2])
def test_fewer_than_three_players_cannot_sit(players: int) -> None:
    with pytest.raises(SeatingError) as refused:
        layout(players, "byes")
    assert refused.value.rule == "seating.too_few_players"


def test_describe_names_the_sizes() -> None:
    assert layout(13).describe() == "13 players: 4+3+3+3"
    assert layout(13, "byes").describe() == "13 players: 4+4+4, 1 bye"
