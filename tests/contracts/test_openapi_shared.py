"""What the published OpenAPI document defines once (`services.doors.query.openapi_share`):
each definition below appeared inline at every use (the replay limits' answers 8 times, the
Trick ids 10 times, the tournament's points in two bodies), which made the document 280 kB and
gave client generators one model per copy. Each is now one `components` entry every use
refers to, and the document still says the same (a real event and body validate)."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from contracts.trickerion import TRICK_IDS
from services.doors.query.openapi import COMMITTED
from services.doors.query.openapi_share import drop_component_titles, drop_derived_titles


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(COMMITTED.read_text(encoding="utf-8"))
    return document


def _answers(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        answer
        for operations in document["paths"].values()
        for operation in operations.values()
        for answer in operation["responses"].values()
    ]


def test_every_problem_answer_and_retry_after_is_a_reference() -> None:
    document = _document()
    inline = [a for a in _answers(document) if "$ref" not in a]
    assert [a for a in inline if "application/problem+json" in a.get("content", {})] == []
    shared = document["components"]["responses"]
    assert "Problem429ReplayClientLimit" in shared
    headers = [h for a in [*inline, *shared.values()] for h in a.get("headers", {}).values()]
    assert headers
    assert all(h == {"$ref": "#/components/headers/Retry-After"} for h in headers)
    assert document["components"]["headers"]["Retry-After"]["schema"]["minimum"] == 1


def _enums(node: Any) -> list[list[Any]]:
    """Every `enum` list in `node`."""
    if isinstance(node, list):
        return [e for item in node for e in _enums(item)]
    if not isinstance(node, dict):
        return []
    own = [node["enum"]] if isinstance(node.get("enum"), list) else []
    return own + [e for value in node.values() for e in _enums(value)]


def test_the_catalogue_ids_are_listed_once() -> None:
    enums = _enums(_document())
    for member in (TRICK_IDS[-1], "P28", "XP6"):
        assert sum(member in e for e in enums) == 1, member
    schemas = _document()["components"]["schemas"]
    assert schemas["TrickId"]["anyOf"][0]["enum"] == list(TRICK_IDS)


def test_the_write_doors_bodies_are_components() -> None:
    document = _document()
    tournaments = document["paths"]["/tournaments"]["post"]["requestBody"]
    schema = tournaments["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/NewTournament"}
    assert "x-components" not in json.dumps(document)
    body = {"tournament_id": "club-1", "title": "Club night", "game": "trickerion", "rounds": 3}
    check = Draft202012Validator({**schema, "components": document["components"]})
    assert list(check.iter_errors(body)) == []
    assert [e.validator for e in check.iter_errors({**body, "rounds": 0})] == ["minimum"]


def test_an_event_naming_an_unknown_trick_gives_one_error_through_the_shared_id() -> None:
    document = _document()
    own = {"$ref": "#/components/schemas/TrickLearnedEvent", "components": document["components"]}
    event = {
        "event_id": "6f1d7c0e-8a47-4c71-9a43-0d7d5a0c2b11",
        "game_id": "g1",
        "seq": 3,
        "type": "trickerion.trick_learned",
        "schema_version": 1,
        "occurred_at": "2026-11-30T10:00:00Z",
        "actor": "table-1",
        "payload": {"player_id": "ann", "trick_id": "T01"},
    }
    check = Draft202012Validator(own)
    errors = list(check.iter_errors(event))
    assert errors == [] or all("trick_id" not in list(e.absolute_path) for e in errors), errors
    bad = list(check.iter_errors({**event, "payload": {**event["payload"], "trick_id": "T49"}}))
    assert [list(e.absolute_path) for e in bad] == [["payload", "trick_id"]]


def test_the_tournament_and_league_replay_parameter_is_defined_once() -> None:
    document = _document()
    ref = {"$ref": "#/components/parameters/at_seq_replay"}
    users = [
        path
        for path, operations in document["paths"].items()
        for operation in operations.values()
        if ref in operation.get("parameters", [])
    ]
    assert len(users) == 6
    assert all(path.startswith(("/tournaments/", "/leagues/")) for path in users)
    shared = document["components"]["parameters"]["at_seq_replay"]
    assert shared["name"] == "at_seq"
    assert shared["schema"]["anyOf"][0]["maximum"] == 10_000_000


def test_a_title_that_only_repeats_the_name_is_dropped_and_an_own_title_kept() -> None:
    """`drop_derived_titles`: pydantic's `Player Id` for `player_id` goes (property and
    parameter); a title a field sets itself, and a model's title, stay."""
    document = {
        "title": "Seat",
        "properties": {
            "player_id": {"title": "Player Id", "type": "string"},
            "seat": {"title": "Seat number", "type": "integer"},
        },
        "parameters": [{"in": "query", "name": "at_seq", "schema": {"title": "At Seq"}}],
    }
    drop_derived_titles(document)
    assert document == {
        "title": "Seat",
        "properties": {
            "player_id": {"type": "string"},
            "seat": {"title": "Seat number", "type": "integer"},
        },
        "parameters": [{"in": "query", "name": "at_seq", "schema": {}}],
    }


def test_a_component_title_that_only_repeats_its_key_is_dropped() -> None:
    """`drop_component_titles`: `components/schemas/Seat`'s title `Seat` goes (generators name
    the model by its key, the same name); a title unlike the key stays, and so does a title
    inside a component. The committed document has no component titled as its key."""
    document = {
        "components": {
            "schemas": {
                "Seat": {"title": "Seat", "type": "object", "properties": {}},
                "SchemaVersion1": {"title": "Schema Version", "const": 1},
                "Lines": {"type": "array", "items": {"title": "Lines", "type": "object"}},
            }
        }
    }
    drop_component_titles(document)
    assert document["components"]["schemas"] == {
        "Seat": {"type": "object", "properties": {}},
        "SchemaVersion1": {"title": "Schema Version", "const": 1},
        "Lines": {"type": "array", "items": {"title": "Lines", "type": "object"}},
    }
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))["components"]["schemas"]
    assert [name for name, schema in committed.items() if schema.get("title") == name] == []
