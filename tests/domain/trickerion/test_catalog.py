"""The card catalog matches docs/rules/trickerion.md#level-3 and every Level 3 condition is valid data."""

from __future__ import annotations

import json

import pytest

from contracts import catalogue
from domain.trickerion.catalog import characters, performances, tricks
from domain.trickerion.conditions import COUNTERS, condition_points
from tests.docs.anchors import CITATION, broken


def test_catalog_holds_48_tricks_and_28_performance_cards() -> None:
    assert sorted(tricks()) == [f"T{n:02d}" for n in range(1, 49)]
    assert sorted(performances()) == [f"P{n:02d}" for n in range(1, 29)]


@pytest.mark.parametrize(
    "name", ["tricks.json", "performances.json", "characters.json", "limits.json"]
)
def test_each_data_file_names_its_source(name: str) -> None:
    """Each file's `source` opens with a citation of the rules page that says where its
    values came from, a heading that exists."""
    source = json.loads(catalogue.text("trickerion", name))["source"]
    cited = CITATION.match(source)
    assert cited is not None, source
    assert cited.group(0).startswith("docs/rules/trickerion.md#card-data"), source
    assert broken(cited.group(0)) is None


@pytest.mark.parametrize(
    ("trick_id", "level", "yield_", "markers"),
    [
        ("T01", 1, (2, 0, 0), 2),
        ("T02", 1, (3, 1, 0), 1),  # † markers: SH, SC, RC say 1
        ("T16", 1, (3, 2, 0), 2),
        ("T20", 2, (3, 3, 1), 3),
        ("T42", 2, (1, 5, 0), 3),
        ("T46", 3, (4, 8, 0), 2),
        ("T47", 3, (7, 7, 0), 1),
    ],
)
def test_trick_rows_match_research_table(
    trick_id: str, level: int, yield_: tuple, markers: int
) -> None:
    card = tricks()[trick_id]
    assert (
        card.level,
        (card.yield_.fame, card.yield_.coins, card.yield_.shards),
        card.markers,
    ) == (
        level,
        yield_,
        markers,
    )


def test_majority_components_are_used_where_bga_differs() -> None:
    assert dict(tricks()["T06"].components) == {"fabric": 3, "saw": 2, "mirror": 1}
    assert dict(tricks()["T09"].components) == {"glass": 2, "fabric": 3, "saw": 2, "disguise": 1}


def test_thresholds_follow_levels_1_16_36() -> None:
    assert {(t.level, t.threshold) for t in tricks().values()} == {(1, 1), (2, 16), (3, 36)}
    assert sum(t.level == 3 for t in tricks().values()) == 16


def test_every_level3_trick_has_a_condition_over_known_counters_and_no_other_does() -> None:
    zero = dict.fromkeys(COUNTERS, 0)
    for card in tricks().values():
        if card.level == 3:
            assert card.endgame is not None
            assert card.endgame_text
            assert condition_points(card.endgame, zero) == 0
        else:
            assert card.endgame is None


def test_performance_cards_one_shard_link_each_and_magnus_pantheon_is_dark_alley_only() -> None:
    cards = performances().values()
    assert all(c.shard_links == 1 and c.links == c.slots - 1 for c in cards)
    assert {c.id for c in cards if c.dark_alley_only} == {f"P{n}" for n in range(21, 29)}
    assert performances()["P27"].bonus.fame == 4
    assert performances()["P28"].bonus.shards == 2


def test_specialists_backstage_bonuses_are_the_rules_row() -> None:
    backstage = {k: characters()[k].backstage for k in ("assistant", "manager", "engineer")}
    assert [(b.fame, b.coins, b.shards) for b in backstage.values()] == [
        (2, 0, 0),
        (0, 3, 0),
        (0, 0, 1),
    ]
