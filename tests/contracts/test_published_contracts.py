"""The published contracts validate: OpenAPI 3.1 (openapi-spec-validator) and AsyncAPI 3.0
(pydantic-asyncapi), every `$ref` resolves, and real events match the documented bodies.

Source: docs/decisions/0019-hostile-input-at-every-door.md ("Published contracts that validate and describe").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from openapi_spec_validator import OpenAPIV31SpecValidator
from pydantic_asyncapi import AsyncAPI

CONTRACTS = Path(__file__).resolve().parents[2] / "contracts"
OPENAPI: dict[str, Any] = json.loads((CONTRACTS / "openapi.json").read_text(encoding="utf-8"))
ASYNCAPI: dict[str, Any] = yaml.safe_load((CONTRACTS / "asyncapi.yaml").read_text(encoding="utf-8"))
EVENTS = [
    json.loads(line)
    for path in sorted((CONTRACTS / "examples").glob("*.jsonl"))
    for line in path.read_text(encoding="utf-8").splitlines()
    if line
]


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _resolves(document: dict[str, Any], ref: str) -> bool:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _validator(schema: dict[str, Any], document: dict[str, Any]) -> jsonschema.Validator:
    # refs are `#/components/...`: validate with the document's components at the root
    return jsonschema.Draft202012Validator({**schema, "components": document["components"]})


def test_openapi_is_valid_3_1() -> None:
    assert OPENAPI["openapi"].startswith("3.1.")
    errors = [e.message[:200] for e in OpenAPIV31SpecValidator(OPENAPI).iter_errors()]
    assert errors == []


def test_openapi_refs_all_resolve() -> None:
    unresolved = {r for r in _refs(OPENAPI) if not _resolves(OPENAPI, r)}
    assert unresolved == set()


def _content(path: str, method: str = "get", status: str = "200") -> dict[str, Any]:
    content: dict[str, Any] = OPENAPI["paths"][path][method]["responses"][status]["content"]
    return content


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/games/{game_id}/export/scoresheet.csv", "text/csv"),
        ("/games/{game_id}/export/events.jsonl", "application/x-ndjson"),
        ("/games/{game_id}/live", "text/event-stream"),
        ("/games/live", "text/event-stream"),
    ],
)
def test_openapi_declares_the_media_types_the_server_sends(path: str, media: str) -> None:
    assert list(_content(path)) == [media]
    assert "itemSchema" not in _content(path)[media]  # OpenAPI 3.2 only


def test_openapi_append_body_is_the_event_union_or_a_batch() -> None:
    post = OPENAPI["paths"]["/games/{game_id}/events"]["post"]
    schema = post["requestBody"]["content"]["application/json"]["schema"]
    validator = _validator(schema, OPENAPI)
    for event in EVENTS:
        validator.validate(event)
    validator.validate(EVENTS[:3])
    assert not validator.is_valid({**EVENTS[0], "type": "game.unknown"})
    assert not validator.is_valid({**EVENTS[1], "seq": "2"})
    assert not validator.is_valid([])


def test_asyncapi_is_valid_3_0() -> None:
    assert ASYNCAPI["asyncapi"] == "3.0.0"
    AsyncAPI.model_validate(ASYNCAPI)  # raises on an invalid document
    unresolved = {r for r in _refs(ASYNCAPI) if not _resolves(ASYNCAPI, r)}
    assert unresolved == set()


def test_asyncapi_schemas_are_json_schemas() -> None:
    for schema in ASYNCAPI["components"]["schemas"].values():
        jsonschema.Draft7Validator.check_schema(schema)  # raises, naming the keyword


def test_asyncapi_inbox_message_is_the_event_union() -> None:
    # the shared inbox's message and the integrations' own streams' (docs/decisions/0019-hostile-input-at-every-door.md)
    others = ("DeadLetter", "TournamentEvent", "LeagueEvent")
    messages = [m for k, m in ASYNCAPI["components"]["messages"].items() if k not in others]
    assert len(messages) == 2
    for message in messages:
        assert "correlationId" not in message  # it pointed at a header no entry carries
        validator = _validator(message["payload"], ASYNCAPI)
        for event in EVENTS:
            validator.validate(event)
        validator.validate(EVENTS[:2])
        assert not validator.is_valid({"type": "game.ended"})


def test_asyncapi_has_the_tournament_and_league_streams() -> None:
    from tests.domain.tournament.stream import Stream

    stream = Stream().create(rounds=1).register("a", "b", "c")
    tournament = _validator(
        ASYNCAPI["components"]["messages"]["TournamentEvent"]["payload"], ASYNCAPI
    )
    for event in stream.events:
        tournament.validate(event.model_dump(mode="json"))
    assert not tournament.is_valid({"type": "tournament.created"})
    assert ASYNCAPI["channels"]["tournament-stream"]["address"] == "sl:tournament:{tournament_id}"
    league = _validator(ASYNCAPI["components"]["messages"]["LeagueEvent"]["payload"], ASYNCAPI)
    created = {
        "event_id": "00000000-0000-4000-8000-000000000001",
        "league_id": "club",
        "seq": 1,
        "type": "league.created",
        "schema_version": 1,
        "occurred_at": "2026-12-01T10:00:00Z",
        "actor": "organiser",
        "payload": {"title": "Club", "game": "penumbra"},
    }
    league.validate(created)
    assert not league.is_valid({**created, "payload": {"title": "Club"}})


def test_asyncapi_has_the_dead_letter_channel() -> None:
    channel = ASYNCAPI["channels"]["deadletter"]
    assert channel["address"] == "sl:deadletter"
    assert ASYNCAPI["operations"]["deadletter"]["action"] == "send"
    payload = ASYNCAPI["components"]["messages"]["DeadLetter"]["payload"]
    assert {"raw", "reason", "source", "time"} <= set(payload["required"])
