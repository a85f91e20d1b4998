"""Strict contracts: no coercion that changes meaning, and every string and array bounded.

Both parse paths the doors use are checked: `parse_event` (a dict from parsed JSON, the HTTP
and inbox doors) and `parse_event_json` (JSON text, the store and the offline `score`).
Source: docs/decisions/0019-hostile-input-at-every-door.md ("Loose coercion: `seq: true` is stored as 1, ...").
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event, parse_event_json

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "contracts" / "examples").glob("*.jsonl"))
LINES = [
    line for path in EXAMPLES for line in path.read_text(encoding="utf-8").splitlines() if line
]


def _by_type(wire_type: str) -> dict[str, Any]:
    raw: dict[str, Any] = next(
        json.loads(line) for line in LINES if json.loads(line)["type"] == wire_type
    )
    return raw


def _parsers() -> list[Callable[[dict[str, Any]], Envelope]]:
    return [parse_event, lambda raw: parse_event_json(json.dumps(raw))]


PARSERS = pytest.mark.parametrize("parse", _parsers(), ids=["dict", "json"])


def _refused_field(parse: Callable[[dict[str, Any]], Envelope], raw: dict[str, Any]) -> str:
    """The dotted field of the first error (union tag left out); fails if `raw` parses."""
    with pytest.raises(ValidationError) as info:
        parse(raw)
    loc = info.value.errors()[0]["loc"]
    return ".".join(str(part) for part in loc if not (isinstance(part, str) and "." in part))


@PARSERS
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seq", True),
        ("seq", "5"),
        ("seq", 5.0),
        ("schema_version", True),
        ("schema_version", "1"),
        ("schema_version", 1.0),
        ("occurred_at", -5),
        ("occurred_at", 1764525600),
        ("recorded_at", 0),
    ],
)
def test_envelope_numbers_and_times_are_not_coerced(
    parse: Callable[[dict[str, Any]], Envelope], field: str, value: object
) -> None:
    raw = _by_type("trickerion.advertised")
    raw[field] = value
    assert _refused_field(parse, raw) == field


@PARSERS
@pytest.mark.parametrize("value", [99.0, "99", True])
def test_a_correction_amount_must_be_a_json_integer(
    parse: Callable[[dict[str, Any]], Envelope], value: object
) -> None:
    raw = {
        **_by_type("trickerion.advertised"),
        "type": "game.score_corrected",
        "schema_version": 2,
        "payload": {"player_id": "alma", "amount": value, "reason": "recount", "referee": "ref"},
    }
    assert _refused_field(parse, raw) == "payload.amount"


def _integer_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _integer_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _integer_paths(item, (*path, index))


def _replaced(raw: dict[str, Any], path: tuple[Any, ...], new: object) -> dict[str, Any]:
    out = copy.deepcopy(raw)
    node: Any = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new
    return out


def test_every_whole_number_in_every_example_payload_is_strict() -> None:
    # Each integer of each example payload (counts, seats, options, printed VP, ...) sent as
    # `true`, as text or as a float must be refused on both paths, never read as a number.
    checked = 0
    for line in LINES:
        raw = json.loads(line)
        for path in _integer_paths(raw["payload"], ("payload",)):
            original: Any = raw
            for part in path:
                original = original[part]
            for wrong in (True, str(original), float(original)):
                bad = _replaced(raw, path, wrong)
                for parse in _parsers():
                    with pytest.raises(ValidationError):
                        parse(bad)
            checked += 1
    assert checked > 100  # the examples carry many numbers; the walk really ran


def test_stored_events_round_trip_through_both_paths() -> None:
    # A stored log must still replay: what `dump_event_json` writes parses back unchanged.
    for line in LINES:
        event = parse_event_json(line)
        again = dump_event_json(event)
        assert parse_event_json(again) == event
        assert parse_event(json.loads(again)) == event


@PARSERS
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("type", "x" * 70),
        ("actor", "a" * 501),
        ("game_id", "g" * 65),
        ("correlation_id", "c" * 129),
    ],
)
def test_envelope_strings_are_bounded(
    parse: Callable[[dict[str, Any]], Envelope], field: str, value: str
) -> None:
    raw = _by_type("trickerion.advertised")
    raw[field] = value
    with pytest.raises(ValidationError):
        parse(raw)


@PARSERS
def test_an_initiative_order_longer_than_a_table_is_refused(
    parse: Callable[[dict[str, Any]], Envelope],
) -> None:
    raw = _by_type("game.turn_started")
    raw["payload"]["initiative_order"] = [f"p{i}" for i in range(9)]
    assert _refused_field(parse, raw) == "payload.initiative_order"


@PARSERS
def test_a_declared_inventory_list_is_bounded(
    parse: Callable[[dict[str, Any]], Envelope],
) -> None:
    raw = _by_type("trickerion.endgame_inventory_declared")
    raw["payload"]["set_aside_trick_ids"] = ["T01"] * 33
    assert _refused_field(parse, raw) == "payload.set_aside_trick_ids"


@PARSERS
def test_reopens_game_must_be_a_json_boolean(
    parse: Callable[[dict[str, Any]], Envelope],
) -> None:
    raw = {
        **_by_type("trickerion.advertised"),
        "type": "game.event_voided",
        "payload": {
            "voided_event_id": _by_type("game.ended")["event_id"],
            "reason": "miscount",
            "referee": "ref",
            "reopens_game": 1,
        },
    }
    assert _refused_field(parse, raw) == "payload.reopens_game"
