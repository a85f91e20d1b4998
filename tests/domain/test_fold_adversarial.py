"""Adversarial cases for the game-independent fold (domain/fold.py) and standings ranks:
the log's order, one game per log, corrections and voids in the middle and after the end."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.fold import evolve, fold
from domain.standings import competition_ranks, standings
from tests.domain.penumbra.builders import PenumbraGame
from tests.domain.refusal import violation
from tests.domain.trickerion.builders import TrickerionGame


def _violation(state: object, event: object) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        evolve(state, event)  # type: ignore[arg-type]
    return caught.value


def test_seq_gap_and_a_repeated_seq_are_refused() -> None:
    g = PenumbraGame(["ada"])
    state = g.state()
    g.arcana_gained("ada", 1)
    event = g.events.pop()
    assert _violation(state, event.model_copy(update={"seq": 3})).rule == "log.seq_gap"
    assert _violation(state, event.model_copy(update={"seq": 1})).rule == "log.seq_order"


def test_an_event_of_another_game_id_is_refused() -> None:
    g = PenumbraGame(["ada"])
    state = g.state()
    g.arcana_gained("ada", 1)
    event = g.events.pop().model_copy(update={"game_id": "other"})
    assert _violation(state, event).rule == "log.game_id"


def test_an_event_of_the_other_game_is_refused() -> None:
    # A Trickerion log receiving a Penumbra payload (right game id and seq).
    t = TrickerionGame(["ann", "ben"], game_id="g")
    p = PenumbraGame(["ann"], game_id="g")
    p.arcana_gained("ann", 1)
    foreign = p.events[-1].model_copy(update={"seq": 2})
    assert _violation(t.state(), foreign).rule == "trickerion.event.unknown"


def test_a_second_game_start_is_refused() -> None:
    g = PenumbraGame(["ada"])
    start = g.events[0].model_copy(update={"seq": 2})
    assert _violation(g.state(), start).rule == "log.started_twice"


def test_the_game_start_cannot_be_voided() -> None:
    g = PenumbraGame(["ada"])
    g.voided(g.events[0])
    refused = violation(g)
    assert refused.rule == "void.game_started"


def test_a_void_cannot_be_voided_nor_an_event_voided_twice() -> None:
    g = PenumbraGame(["ada"])
    gained = g.arcana_gained("ada", 3)
    void = g.voided(gained)
    g.voided(void)
    refused = violation(g)
    assert refused.rule == "void.of_void"
    g.events.pop()
    g.voided(gained)
    refused = violation(g)
    assert refused.rule == "void.already_void"


def test_a_correction_for_an_unknown_player_or_category_is_refused() -> None:
    g = PenumbraGame(["ada"])
    g.corrected("zed", 1)
    refused = violation(g)
    assert refused.rule == "correction.unknown_player"
    g.events.pop()
    g.corrected("ada", 1, category="fame_bonus")
    refused = violation(g)
    assert refused.rule == "correction.unknown_category"


def test_a_correction_in_the_middle_lands_in_its_category_and_the_total() -> None:
    # Arcana 4 + a +2 correction to "trials" + Trial 3 VP = 9; trials category 5.
    g = PenumbraGame(["ada"])
    g.arcana_gained("ada", 4)
    g.corrected("ada", 2, category="trials")
    g.trial_completed("ada", "tr", vp=3)
    assert g.totals() == {"ada": 9}
    assert g.breakdown("ada")["trials"] == 5


def test_fold_upto_seq_stops_before_the_void() -> None:
    g = PenumbraGame(["ada"])
    gained = g.arcana_gained("ada", 4)
    g.voided(gained)
    assert standings(fold(g.events, upto_seq=2)).players[0].total == 4
    assert standings(fold(g.events)).players[0].total == 0


def test_competition_ranks_share_places_and_skip() -> None:
    assert competition_ranks({"a": 10, "b": 10, "c": 10, "d": -2}) == {
        "a": 1,
        "b": 1,
        "c": 1,
        "d": 4,
    }
    assert competition_ranks({"a": -1, "b": -3, "c": -1}) == {"a": 1, "b": 3, "c": 1}
