"""Trickerion payloads on the wire: every event round-trips through JSON, the options travel in
`trickerion.game_started`, so a replay from the JSON log scores the same."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from contracts.events import dump_event_json, parse_event_json
from contracts.trickerion import TRICKERION_PAYLOADS, Advertised, TrickerionOptions
from domain.fold import fold
from domain.standings import standings
from tests.domain.trickerion.builders import TrickerionGame


def small_game() -> TrickerionGame:
    g = TrickerionGame(
        ["ann", "ben"], academy=True, dot_rounding="two_per_started_three", dawn_of_technology=True
    )
    g.turn()
    g.advertise("ann", 1)
    g.learn("ann", "T16")
    g.learn("ben", "T01")
    g.hire("ben", "manager")
    g.link("ben", "T01", other="ann", reward="coins", shard=True)
    g.yield_("ann", "T16", "P03", fame=3, coins=2, shards=0)
    g.perform("ben", "P03", links=1, specialists=("manager",), bonus_fame=1)
    g.change("ann", "wages", coins=-1)
    g.to_final_turn(["ben", "ann"])
    g.inventory("ann", academy_banners=3, contraption_shards=2)
    g.inventory("ben", academy_banners=1, specialists=("manager",))
    g.end()
    return g


def test_every_trickerion_wire_type_round_trips_and_a_replay_scores_the_same() -> None:
    g = small_game()
    wire = [dump_event_json(e) for e in g.events]
    replayed = [parse_event_json(line) for line in wire]
    assert replayed == g.events
    assert {e.type for e in replayed} >= {p.TYPE for p in TRICKERION_PAYLOADS}
    assert standings(fold(replayed)) == g.standings()


def test_the_options_are_recorded_in_the_game_started_event() -> None:
    started = parse_event_json(dump_event_json(small_game().events[0]))
    assert started.payload.options == TrickerionOptions(  # type: ignore[attr-defined]
        academy=True, dawn_of_technology=True, dot_rounding="two_per_started_three"
    )


def test_payloads_reject_unknown_fields_and_are_frozen() -> None:
    with pytest.raises(ValidationError):
        Advertised(player_id="ann", coins_paid=1, fame=2)  # type: ignore[call-arg]
    ad = Advertised(player_id="ann", coins_paid=1)
    with pytest.raises(ValidationError):
        ad.coins_paid = 2  # type: ignore[misc]


def test_every_option_has_a_docstring_citing_its_source() -> None:
    for name, field in TrickerionOptions.model_fields.items():
        assert field.description, name
        assert (
            "REC" in field.description
            or "rules" in field.description.lower()
            or "research" in field.description
        ), name
