"""The projection both writers store (`services.usecases.projected.rendered`: the append's
live projection and the projector's per-batch rendering), rendered from the standings kept
event by event (`domain.standings_kept`), is byte for byte the full render of the same state
folded from nothing: the standings JSON and the view, through play, voids, corrections and
a category no ruleset labels (a new label changes every player's breakdown)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

from domain.fold import Folder, GameState
from domain.memo import Memo
from domain.standings import standings, standings_json
from services.usecases.projected import rendered
from services.usecases.readmodels.render import view_json
from tests.domain.referee import KINDS, PICKS, SEEDS, middle_of_play, referee_through
from tests.domain.test_standings_incremental import cold
from tests.query.conftest import load

PROPERTY = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_rendered_is_full(state: GameState[Any]) -> None:
    fresh = cold(state)
    text, view = rendered(state)
    assert text.encode() == standings_json(fresh), f"seq {state.seq}"
    assert view == view_json(standings(fresh), Memo()), f"seq {state.seq}"


def test_the_demo_games_rendered_after_every_event_are_the_full_render() -> None:
    for name in ("trickerion-demo.jsonl", "penumbra-demo.jsonl"):
        folder: Folder[Any] = Folder()
        for event in load(name):
            folder.add(event)
            assert_rendered_is_full(folder.state)


@PROPERTY
@given(seed=SEEDS, kind=KINDS, picks=PICKS)
def test_rendered_through_play_voids_and_new_categories_is_the_full_render(
    seed: int, kind: str, picks: list[int]
) -> None:
    folder = middle_of_play(kind, seed, assert_rendered_is_full)
    referee_through(folder, picks, assert_rendered_is_full, unlabelled=True)
