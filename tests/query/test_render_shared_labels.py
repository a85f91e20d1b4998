"""The view's label base and labels JSON (services/usecases/readmodels/render.py) are built
once per label set and shared by the games showing the very same label objects; label
objects with the same keys but another text get their own."""

from __future__ import annotations

from typing import Any

from domain.fold import fold
from domain.memo import Memo
from domain.standings import standings
from services.usecases.readmodels.render import view_json
from tests.query.conftest import load


def test_two_games_of_one_ruleset_share_their_labels() -> None:
    result = standings(fold(load("trickerion-demo.jsonl")))
    first, second = Memo(), Memo()
    assert view_json(result, first) == view_json(result, second)
    for slot in (("readmodels.view_labels",), ("readmodels.view_base",)):
        kept_first, kept_second = first.latest(slot), second.latest(slot)
        assert kept_first is not None
        assert kept_second is not None
        assert kept_first[1] is kept_second[1]


def test_labels_with_the_same_keys_and_another_text_are_not_shared() -> None:
    result = standings(fold(load("trickerion-demo.jsonl")))
    view_json(result, Memo())
    renamed: Any = [c.model_copy(update={"en": f"{c.en}!"}) for c in result.categories]
    other = result.model_copy(update={"categories": renamed})
    body = view_json(other, Memo())
    assert all(f'"en":"{c.en}"'.encode() in body for c in renamed)
