"""`contracts/schemas/event.json` in a standard JSON Schema validator (python-jsonschema,
Draft 2020-12, as ajv and check-jsonschema read it): one bad field of an event gives one
error naming that field. With `oneOf` over every event type (and `discriminator`, an OpenAPI
keyword validators ignore), one bad field gave one error per event type in its context."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from services.rules.ids import ROOT
from tests.pipeline.factory import corrected, started

SCHEMAS = ROOT / "contracts" / "schemas"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def errors(event: dict[str, Any]) -> list[tuple[list[Any], str]]:
    found = validator("event.json").iter_errors(event)
    return [(list(e.absolute_path), e.validator) for e in found]


def all_errors(event: dict[str, Any]) -> int:
    """Every error, nested contexts counted too (what a validator prints)."""
    stack = list(validator("event.json").iter_errors(event))
    count = 0
    while stack:
        error = stack.pop()
        count += 1
        stack.extend(error.context)
    return count


def test_valid_events_pass() -> None:
    for event in (started("g1"), corrected("g1", 2, "ann", 3)):
        assert errors(event.to_wire()) == []


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"seq": "two"}, ["seq"]),
        ({"actor": ""}, ["actor"]),
        ({"payload": {"player_id": "ann", "amount": "x", "reason": "r", "referee": "f"}}, ["payload", "amount"]),
    ],
)  # fmt: skip
def test_one_bad_field_gives_one_error_naming_it(change: dict[str, Any], path: list[Any]) -> None:
    event = {**corrected("g1", 2, "ann", 3).to_wire(), **change}
    assert [p for p, _ in errors(event)] == [path]
    assert all_errors(event) == 1


def test_an_unknown_type_gives_one_error_at_type() -> None:
    event = {**corrected("g1", 2, "ann", 3).to_wire(), "type": "game.no_such_type"}
    assert [p for p, _ in errors(event)] == [["type"]]
    assert all_errors(event) == 1
