"""The tournament and league envelopes take the games' envelope checks (`EnvelopeChecks`, one
definition): no number or time coerced, unknown fields refused, frozen, `with_recorded_at`
keeping the concrete event type; and their field order is the stored JSON's."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from contracts.league import (
    LeagueCreated,
    LeagueEnvelope,
    parse_league_event,
    parse_league_event_json,
)
from contracts.tournament import (
    TournamentCreated,
    TournamentEnvelope,
    parse_tournament_event,
    parse_tournament_event_json,
)

TOURNAMENT: dict[str, Any] = {
    "event_id": "7b0c5a4e-8a3f-4f55-9a53-0d0e3f1b9a11",
    "tournament_id": "cup",
    "seq": 1,
    "type": "tournament.created",
    "schema_version": 1,
    "occurred_at": "2026-12-01T10:00:00Z",
    "actor": "organiser",
    "payload": TournamentCreated(title="Cup", game="trickerion", rounds=3).model_dump(mode="json"),
}
LEAGUE: dict[str, Any] = {
    **{k: v for k, v in TOURNAMENT.items() if k != "tournament_id"},
    "league_id": "club",
    "type": "league.created",
    "payload": LeagueCreated(title="Club", game="penumbra").model_dump(mode="json"),
}
Parse = Callable[[dict[str, Any]], TournamentEnvelope | LeagueEnvelope]
KINDS: list[tuple[dict[str, Any], Parse]] = [
    (TOURNAMENT, parse_tournament_event),
    (TOURNAMENT, lambda raw: parse_tournament_event_json(json.dumps(raw))),
    (LEAGUE, parse_league_event),
    (LEAGUE, lambda raw: parse_league_event_json(json.dumps(raw))),
]
IDS = ["tournament-dict", "tournament-json", "league-dict", "league-json"]


@pytest.mark.parametrize(("good", "parse"), KINDS, ids=IDS)
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seq", True),
        ("schema_version", True),
        ("schema_version", "1"),
        ("occurred_at", -5),
        ("recorded_at", 0),
        ("surprise", 1),
    ],
)
def test_numbers_times_and_unknown_fields_are_refused(
    good: dict[str, Any], parse: Parse, field: str, value: object
) -> None:
    parse(good)  # the unchanged event parses
    with pytest.raises(ValidationError) as info:
        parse({**good, field: value})
    locs = [".".join(str(p) for p in e["loc"] if "." not in str(p)) for e in info.value.errors()]
    assert locs == [field]


@pytest.mark.parametrize(("good", "parse"), KINDS[::2], ids=IDS[::2])
def test_stamping_keeps_the_type_and_the_field_order(good: dict[str, Any], parse: Parse) -> None:
    event = parse(good)
    when = datetime(2026, 12, 1, 10, 0, 5, tzinfo=UTC)
    stamped = event.with_recorded_at(when)
    assert type(stamped) is type(event)
    assert stamped.recorded_at == when
    with pytest.raises(ValidationError):
        setattr(stamped, "seq", 2)  # noqa: B010 (frozen)
    stream = "tournament_id" if "tournament_id" in good else "league_id"
    assert list(json.loads(stamped.model_dump_json())) == [
        "event_id", stream, "seq", "type", "schema_version", "occurred_at", "recorded_at",
        "actor", "correlation_id", "causation_id", "payload",
    ]  # fmt: skip
