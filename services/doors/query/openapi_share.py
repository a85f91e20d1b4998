"""Things the published OpenAPI document defines once and refers to (docs/clients.md).

FastAPI writes a route's own answers inline and pydantic a constrained type at every field
that uses it, so the same definition appeared in many places. These passes move each into
`components` under a stable name and put a `$ref` where it was; the document validates the
same JSON as before (`tests/contracts/test_served_contract.py`).

* `share_answers`: every route's own problem answer (a status with a description naming its
  rule ids, e.g. the replay limits' 429 and 503) becomes `components/responses/Problem<status>
  <Rule>`, and every `Retry-After` header `components/headers/Retry-After`;
* `drop_derived_titles`: a property's or parameter's title that only repeats its name;
* `drop_component_titles`: a component schema's title that only repeats its key;
* `share_catalogue_types`: the catalogue's card ids (`contracts.trickerion.TrickId`,
  `PerformanceCardId`) and Penumbra's experience kinds become `components/schemas/...`.

Each name depends only on the answer or type itself, so an app with fewer roles refers to
the same components as the committed document.
"""

from __future__ import annotations

import re
from typing import Any, get_args

PROBLEM_MEDIA_TYPE = "application/problem+json"
BODY_COMPONENTS = "x-components"
"""What `services.doors.ingest.stream_writes.body` calls the schemas a body carries."""
RULE_AT_START = re.compile(r"^([a-z][a-z0-9_]*(?:\.[a-z0-9_*]+)+)")
"""A description that starts with a rule id (`replay.client_limit: ...`)."""
UNTYPED_JSON = {
    "description": "Successful Response",
    "content": {"application/json": {"schema": {}}},
}
"""FastAPI's success answer of a route that returns a response of its own (no model)."""
PLAIN_WORDS = re.compile(r"[A-Za-z]+(?: [A-Za-z]+){0,4}")


def _camel(rule: str) -> str:
    """`replay.client_limit` -> `ReplayClientLimit`."""
    return "".join(part.capitalize() for part in re.split(r"[._]", rule) if part)


def _success_name(answer: dict[str, Any]) -> str | None:
    """The shared name of a plain success answer: `UntypedJson` for FastAPI's untyped one,
    `<Schema>` for one whose only content is JSON of a `components/schemas` entry; else None."""
    if answer == UNTYPED_JSON:
        return "UntypedJson"
    if answer.get("description") != UNTYPED_JSON["description"] or set(answer) != {
        "description",
        "content",
    }:
        return None
    schema = answer["content"].get("application/json", {}).get("schema", {})
    ref = schema.get("$ref", "") if len(answer["content"]) == 1 else ""
    return ref.rsplit("/", 1)[1] if ref.startswith("#/components/schemas/") else None


def _answer_name(status: str, answer: dict[str, Any]) -> str | None:
    """`Problem<status><Rule>` for a problem answer whose description starts with a rule id,
    `Problem<status><Words>` for one with a short plain description (FastAPI's `Validation
    Error`), else None (kept inline)."""
    if PROBLEM_MEDIA_TYPE not in answer.get("content", {}):
        return None
    description = answer.get("description", "")
    if (found := RULE_AT_START.match(description)) is not None:
        return f"Problem{status}{_camel(found.group(1))}"
    if PLAIN_WORDS.fullmatch(description):
        return f"Problem{status}{''.join(w.capitalize() for w in description.split())}"
    return None


def share_answers(document: dict[str, Any]) -> None:
    """Refer every inline problem answer whose description starts with a rule id, and every
    `Retry-After` header, to one `components` entry.

    Raises:
        ValueError: two answers of one status and first rule id differ (one name for two
            definitions would misstate one of them).
    """
    components = document.setdefault("components", {})
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            answers = operation.get("responses", {})
            for status, answer in list(answers.items()):
                if (name := _success_name(answer)) is not None:
                    shared = components.setdefault("responses", {})
                    if shared.setdefault(name, answer) != answer:
                        raise ValueError(f"two success answers named {name} differ")
                    answers[status] = {"$ref": f"#/components/responses/{name}"}
                if "$ref" in answers[status]:
                    continue
                _share_headers(components, answer)
                name = _answer_name(status, answer)
                if name is None:
                    continue
                shared = components.setdefault("responses", {})
                if shared.setdefault(name, answer) != answer:
                    raise ValueError(f"two {status} answers named {name} differ")
                answers[status] = {"$ref": f"#/components/responses/{name}"}
    for answer in components.get("responses", {}).values():
        _share_headers(components, answer)


def _share_headers(components: dict[str, Any], answer: dict[str, Any]) -> None:
    """`answer`'s `Retry-After` header as a reference to `components/headers/Retry-After`.

    Raises:
        ValueError: two answers document the header differently.
    """
    header = answer.get("headers", {}).get("Retry-After")
    if header is None or "$ref" in header:
        return
    shared = components.setdefault("headers", {})
    if shared.setdefault("Retry-After", header) != header:
        raise ValueError("two answers document Retry-After differently")
    answer["headers"]["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}


def catalogue_types() -> dict[str, dict[str, Any]]:
    """The named types shared by `share_catalogue_types`: name -> the members pydantic writes
    at each field of that type (from the contracts themselves; an experience kind as a map's
    `propertyNames` has its `enum` without `type`, so only the `enum` is matched)."""
    from pydantic import TypeAdapter

    from contracts.envelope import PlayerId
    from contracts.penumbra import CardId, Experience, ExperienceKind
    from contracts.trickerion import PerformanceCardId, TrickId

    return {
        "Experience": TypeAdapter(Experience).json_schema(),  # before the kind it holds
        "PlayerId": TypeAdapter(PlayerId).json_schema(),
        "PenumbraCardId": TypeAdapter(CardId).json_schema(),
        "TrickId": TypeAdapter(TrickId).json_schema(),
        "PerformanceCardId": TypeAdapter(PerformanceCardId).json_schema(),
        "ExperienceKind": {"enum": TypeAdapter(ExperienceKind).json_schema()["enum"]},
    }


DOCUMENTED = {
    "PlayerId": "A player id, unique within its game: 1-32 characters, letters, digits, `_ . -`.",
    "PenumbraCardId": "A Penumbra card, slot or Prophecy id: 1-64 characters, letters, "
    "digits, `_ . : -`.",
    "TrickId": "A Trick card id: one of the catalogue's "
    "(`contracts/catalogue/trickerion/tricks.json`), or `X-...` for a card the game start "
    "declares; another is refused by `trickerion.card.unknown_trick`.",
    "PerformanceCardId": "A Performance card id, one of the catalogue's "
    "(`contracts/catalogue/trickerion/performances.json`); another is refused by "
    "`trickerion.card.unknown_performance`.",
    "ExperienceKind": "One of Penumbra's six experience kinds.",
    "Experience": "Experience symbols on one card: kind -> count (a card with two of a kind "
    "counts 2).",
}


def describe_parameters_once(document: dict[str, Any]) -> None:
    """Drop the copy of each parameter's description that FastAPI also writes into the
    parameter's `schema`: the parameter's own `description` says it."""
    listed = [
        operation.get("parameters", [])
        for section in ("paths", "webhooks")
        for operations in document.get(section, {}).values()
        for operation in operations.values()
    ]
    listed.append(list(document.get("components", {}).get("parameters", {}).values()))
    for parameters in listed:
        for parameter in parameters:
            schema = parameter.get("schema", {})
            if "description" in schema and schema["description"] == parameter.get("description"):
                del schema["description"]


def derived_title(name: str) -> str:
    """The title pydantic derives from a field or parameter name (`player_id` -> `Player Id`)."""
    return name.title().replace("_", " ")


def drop_derived_titles(node: Any) -> None:
    """Drop each property's and parameter's `title` that only repeats its name as pydantic
    derives it (`"player_id": {"title": "Player Id", ...}`): the name says it once. A title of
    its own (a model's, or one a field sets) stays."""
    if isinstance(node, list):
        for item in node:
            drop_derived_titles(item)
        return
    if not isinstance(node, dict):
        return
    for name, schema in (node.get("properties") or {}).items():
        if isinstance(schema, dict) and schema.get("title") == derived_title(name):
            del schema["title"]
    schema = node.get("schema")
    name = str(node.get("name", ""))
    if "in" in node and isinstance(schema, dict) and schema.get("title") == derived_title(name):
        del schema["title"]
    for value in node.values():
        drop_derived_titles(value)


def drop_component_titles(document: dict[str, Any]) -> None:
    """Drop each `components/schemas` entry's `title` that only repeats its key: generators name
    a component's model by its key (openapi-python-client takes the title, the same name), so
    the name is said once. A title unlike its key (`SchemaVersion1`: `Schema Version`) stays."""
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        if isinstance(schema, dict) and schema.get("title") == name:
            del schema["title"]


def share_replay_parameter(document: dict[str, Any]) -> None:
    """Refer every tournament and league route's `at_seq` (one declaration in code,
    `services.doors.query.params.AtSeq`) to `components/parameters/at_seq_replay`; the
    game routes' `at_seq`, declared apart with other bounds and words, stay inline."""
    from services.doors.query.params import AtSeq

    description = get_args(AtSeq)[1].description
    shared = document.setdefault("components", {}).setdefault("parameters", {})
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            parameters = operation.get("parameters", [])
            for i, parameter in enumerate(parameters):
                if parameter.get("name") != "at_seq" or parameter.get("in") != "query":
                    continue
                if parameter.get("description") != description:
                    continue
                if shared.setdefault("at_seq_replay", parameter) != parameter:
                    raise ValueError("two routes declare the replay at_seq differently")
                parameters[i] = {"$ref": "#/components/parameters/at_seq_replay"}


def share_body_models(document: dict[str, Any]) -> None:
    """Move the schemas each write door's `requestBody` carries (`x-components`, from
    `services.doors.ingest.stream_writes.body`) to `components/schemas`, so a model two bodies
    use (the tournament's points, a league's settings) is defined once.

    Raises:
        ValueError: two bodies carry different schemas under one name.
    """
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            carried = operation.get("requestBody", {}).pop(BODY_COMPONENTS, {})
            for name, schema in carried.items():
                if schemas.setdefault(name, schema) != schema:
                    raise ValueError(f"two request bodies define {name} differently")


def share_catalogue_types(document: dict[str, Any]) -> None:
    """Replace, in every schema of `components/schemas`, the members that spell one of
    `catalogue_types()` by a `$ref` to its `components/schemas` entry (other members of that
    place, such as its title or `type`, stay beside it)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    named = catalogue_types()
    used: set[str] = set()
    for schema in schemas.values():
        _replace(schema, named, used)
    while pending := sorted(used - set(schemas)):
        for name in pending:
            for value in named[name].values():  # a type holding another (Experience: kinds)
                _replace(value, named, used)
            schemas[name] = {"title": name, "description": DOCUMENTED[name], **named[name]}


def _replace(node: Any, named: dict[str, dict[str, Any]], used: set[str]) -> None:
    """Walk `node`, replacing each dict that holds one of `named`'s members (same keys and
    values) by a `$ref` with the dict's other members kept; the names replaced go to `used`."""
    if isinstance(node, list):
        for item in node:
            _replace(item, named, used)
        return
    if not isinstance(node, dict):
        return
    for name, members in named.items():
        if all(key in node and node[key] == value for key, value in members.items()):
            for key in members:
                del node[key]
            node["$ref"] = f"#/components/schemas/{name}"
            used.add(name)
            return
    for value in node.values():
        _replace(value, named, used)


def type_the_frames(document: dict[str, Any]) -> None:
    """Give each live stream of `contracts.frames.SSE_EVENTS` an item schema per event: its
    name (`event`), `id`, `retry` and `data`, JSON whose schema (`contentSchema`) is the
    frame's model in `components/schemas`; replaces the generic item FastAPI writes.

    Raises:
        ValueError: a frame model's name is taken by another schema.
    """
    from contracts.frames import SSE_EVENTS

    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for path, operations in document.get("paths", {}).items():
        for operation in operations.values():
            stream = operation["responses"].get("200", {}).get("content", {})
            stream = stream.get("text/event-stream", {})
            if "x-itemSchema" not in stream:
                continue
            events = SSE_EVENTS.get(path)
            if events is None:  # a stream whose frames have no model yet: the generic item
                schemas.setdefault(SSE_EVENT, SSE_EVENT_SCHEMA)
                stream["x-itemSchema"] = {"$ref": f"#/components/schemas/{SSE_EVENT}"}
                continue
            # a stream answers only events: FastAPI's untyped JSON placeholder beside it is false
            operation["responses"]["200"]["content"].pop("application/json", None)
            items = [_frame_item(schemas, name, shapes) for name, shapes in events.items()]
            stream["x-itemSchema"] = items[0] if len(items) == 1 else {"oneOf": items}


def _frame_item(schemas: dict[str, Any], name: str, shapes: list[Any]) -> dict[str, Any]:
    """One SSE event's item schema; each model of `shapes` added to `schemas`."""
    from contracts.frames import REFERS

    refs = []
    for shape in shapes:
        if isinstance(shape, str):
            refs.append({"$ref": shape})
            continue
        schema = shape.model_json_schema(ref_template="#/components/schemas/{model}")
        for field, target in REFERS.get(shape.__name__, {}).items():
            schema["properties"][field] = {"$ref": f"#/components/schemas/{target}"}
        for part, definition in {**schema.pop("$defs", {}), shape.__name__: schema}.items():
            if schemas.setdefault(part, definition) != definition:
                raise ValueError(f"the frame schema {part} clashes with another")
        refs.append({"$ref": f"#/components/schemas/{shape.__name__}"})
    data = refs[0] if len(refs) == 1 else {"oneOf": refs}
    schemas.setdefault(SSE_EVENT, SSE_EVENT_SCHEMA)
    return {
        "allOf": [{"$ref": f"#/components/schemas/{SSE_EVENT}"}],
        "properties": {"event": {"const": name}, "data": {"contentSchema": data}},
    }


SSE_EVENT = "ServerSentEvent"
SSE_EVENT_SCHEMA: dict[str, Any] = {
    "title": SSE_EVENT,
    "description": "One event of a `text/event-stream` answer: its name, its id (send the last "
    "one received back as `Last-Event-ID` to resume: docs/integrating/live.md), the "
    "reconnection delay in ms, and its data, one JSON text whose schema each stream names",
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
        "data": {"type": "string", "contentMediaType": "application/json"},
    },
}
"""What every typed SSE item schema shares (`allOf`)."""
