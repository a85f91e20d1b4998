"""The committed HTTP contract `contracts/openapi.json` is the one every app serves.

`serve_publishable(app)` makes `app.openapi()` (what `GET /openapi.json` and `/docs` serve)
FastAPI's document made `publishable`; `document_text(app)` dumps that same `app.openapi()` of
the full development app, which `services.contracts_gen` builds (`scoreledger serve` with every
role: query, ingest, live push, web scoreboard; the wiring is the composition root's, not this
door's); nothing is hand-written, and nothing differs between the file and the wire. Regenerate with `make schemas` (`python -m services.contracts_gen`); the drift tests
under `tests/contracts/` fail while the committed file differs from either.
Source: docs/decisions/0017-contracts-committed-and-checked.md (contracts, drift tests).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable
from http import HTTPStatus
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from services.doors.query.openapi_share import (
    describe_parameters_once,
    drop_component_titles,
    drop_derived_titles,
    share_answers,
    share_body_models,
    share_catalogue_types,
    share_replay_parameter,
    type_the_frames,
)

COMMITTED = Path(__file__).resolve().parents[3] / "contracts" / "openapi.json"


def document_text(app: FastAPI) -> str:
    """`app.openapi()` as stable JSON text (2-space indent, newline): what `contracts/openapi.json`
    holds when `app` is the full development app (`services.contracts_gen.openapi_json`).

    Raises:
        KeyError: the append route is missing (its body would be undocumented).
    """
    document = app.openapi()
    if "post" not in document["paths"].get(APPEND_PATH, {}):
        raise KeyError(f"the append route {APPEND_PATH} is missing: its body would be untyped")
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def serve_publishable(app: FastAPI) -> None:
    """Make `app.openapi()` (served at `/openapi.json`, read by `/docs`) return FastAPI's
    document made `publishable`, built once on first use."""
    fastapi_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if getattr(app, "_publishable", None) is None:
            app._publishable = publishable(fastapi_openapi())  # type: ignore[attr-defined]
        document: dict[str, Any] = app._publishable  # type: ignore[attr-defined]
        return document

    app.openapi = openapi  # type: ignore[method-assign]


# The media types the export routes really send (services/doors/web/routes.py), by path suffix.
EXPORT_MEDIA_TYPES = {".csv": "text/csv", ".jsonl": "application/x-ndjson"}
APPEND_PATH = "/games/{game_id}/events"


def publishable(document: dict[str, Any]) -> dict[str, Any]:
    """Make FastAPI's document valid OpenAPI 3.1 and true to the wire (docs/decisions/0019-hostile-input-at-every-door.md):

    * `itemSchema` (OpenAPI 3.2) of `text/event-stream` answers becomes a string schema, the
      item kept as the extension `x-itemSchema`;
    * the exports declare `text/csv` and `application/x-ndjson` (FastAPI says `text/plain` and
      `application/json` for a plain `Response`);
    * the append body is the event union (`contracts/schemas/event.json`) or a batch of it,
      and its bearer token optional (a game's creation needs none) (when the app has the
      ingest role; `generate` raises `KeyError` when the full app lacks it).
    """
    for path, operations in document["paths"].items():
        for operation in operations.values():
            for status, answer in operation.get("responses", {}).items():
                content = answer.get("content", {})
                stream = content.get("text/event-stream")
                if stream is not None and "itemSchema" in stream:
                    item = stream.pop("itemSchema")
                    stream["schema"] = {"type": "string", "description": "server-sent events"}
                    stream["x-itemSchema"] = item
                media = next((m for s, m in EXPORT_MEDIA_TYPES.items() if path.endswith(s)), None)
                # the export's own answer only: its refusals are problems (a 429, a 503)
                if media and status.startswith("2") and len(content) == 1 and media not in content:
                    content[media] = {"schema": {"type": "string"}}
                    del content[next(iter(content))]
    _type_the_append_body(document)
    _problems_everywhere(document)
    _outbound_webhooks(document)
    _share_parameters(document)
    type_the_frames(document)
    describe_parameters_once(document)
    share_answers(document)
    share_replay_parameter(document)
    share_body_models(document)
    share_catalogue_types(document)
    drop_derived_titles(document)
    drop_component_titles(document)
    return document


WEBHOOK_HEADERS = [
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "description": "the message id (`msg_...`), the same on every retry and replay: "
        "deduplicate on it",
        "schema": {"type": "string"},
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "description": "Unix seconds of this attempt",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "description": "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` per live secret, "
        "space-separated (two during a secret rotation's window)",
        "schema": {"type": "string"},
    },
]


def _outbound_webhooks(document: dict[str, Any]) -> None:
    """The signed outbound messages (Standard Webhooks 1.0) as OpenAPI 3.1 `webhooks`, one
    operation per message type, bodies from `contracts.webhooks`."""
    from contracts.webhooks import MESSAGES

    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    hooks: dict[str, Any] = {}
    for kind, model in MESSAGES.items():
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = schema
        hooks[kind] = {
            "post": {
                "operationId": "webhook_" + kind.replace(".", "_"),
                "summary": (model.__doc__ or kind).strip().splitlines()[0],
                "description": "POSTed to each endpoint that takes this type "
                "(`scoreledger webhooks add`); retried on 5xx, 429 and no answer.",
                "parameters": WEBHOOK_HEADERS,
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": f"#/components/schemas/{model.__name__}"}
                        }
                    },
                },
                "responses": {"2XX": {"description": "received (any other answer: not)"}},
            }
        }
    document["webhooks"] = hooks


RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": "seconds to wait before retrying",
        "schema": {"type": "integer", "minimum": 1},
    }
}


def _problems_everywhere(document: dict[str, Any]) -> None:
    """Every error answer is a `Problem` (`services.doors.asgi.http_errors`): FastAPI's 422 is replaced,
    every operation with a path parameter documents 404 (an unknown game, seq, player), and
    every operation but `/healthz` 503 with `Retry-After` (Redis unavailable). Other error
    answers are documented by their routes (`problem_responses`). The shape is defined once,
    `components/schemas/Problem`, and every `application/problem+json` answer refers to it."""
    from services.platform.problems import PROBLEM_MEDIA_TYPE, Problem, problem_responses

    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    problem_schema = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(problem_schema.pop("$defs", {}))
    schemas["Problem"] = problem_schema
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    ref = {"$ref": "#/components/schemas/Problem"}
    for path, operations in document["paths"].items():
        for operation in operations.values():
            answers = operation.setdefault("responses", {})
            wanted = {422} | ({404} if "{" in path else set())
            # storage faults (docs/decisions/0011-faults-are-answered-not-crashed.md)
            if path != "/healthz" and "503" not in answers:
                wanted.add(503)
            for status, entry in problem_responses(*sorted(wanted)).items():
                entry["content"] = {k: {"schema": ref} for k in entry["content"]}
                if status == 503:
                    entry["headers"] = RETRY_AFTER_HEADER
                previous = answers.get(str(status), {})
                answers[str(status)] = {
                    **entry,
                    "description": previous.get("description", entry["description"]),
                }
            for status, answer in answers.items():  # the routes' own (`problem_responses`)
                if PROBLEM_MEDIA_TYPE not in answer.get("content", {}):
                    continue
                answer["content"][PROBLEM_MEDIA_TYPE] = {"schema": ref}
                answers[status] = _shared_answer(document, status, answer)


def _shared_answer(document: dict[str, Any], status: str, answer: dict[str, Any]) -> Any:
    """`answer` as a reference to `components/responses/Problem<status>` when it is that
    status's plain problem answer (its phrase as description), else `answer` itself."""
    shared = document["components"].setdefault("responses", {})
    name = f"Problem{status}"
    if answer["description"] != HTTPStatus(int(status)).phrase:
        return answer
    if shared.setdefault(name, answer) != answer:
        return answer  # another route's answer of this status differs (headers): keep inline
    return {"$ref": f"#/components/responses/{name}"}


def _type_the_append_body(document: dict[str, Any]) -> None:
    from contracts.events import EVENT_ADAPTER
    from services.usecases.parse import MAX_BATCH

    if "post" not in document["paths"].get(APPEND_PATH, {}):
        return  # an app without the ingest role (`generate` checks the full app has it)
    union = EVENT_ADAPTER.json_schema(ref_template="#/components/schemas/{model}")
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(union.pop("$defs"))
    schemas["Event"] = {"title": "Event", **union}
    _share_the_envelope(schemas, union["discriminator"]["mapping"].values())
    event = {"$ref": "#/components/schemas/Event"}
    batch = {"type": "array", "items": event, "minItems": 1, "maxItems": MAX_BATCH}
    append = document["paths"][APPEND_PATH]["post"]
    # The token is optional: the request creating a game may send none (the 201 returns one);
    # an empty requirement says so (OpenAPI 3.1 §4.8.30).
    append["security"] = (
        [*append.get("security", []), {}]
        if {} not in append.get("security", [])
        else append["security"]
    )
    body = append["requestBody"]["content"]["application/json"]
    description = "one event, or a batch of events of this game in seq order"
    body["schema"] = {"oneOf": [event, batch], "description": description}


ENVELOPE_SCHEMA = "EventEnvelope"
OWN_FIELDS = ("type", "schema_version", "payload")
"""What each event type's schema declares itself (narrowed); the rest is `EventEnvelope`."""


def _share_the_envelope(schemas: dict[str, Any], refs: Iterable[str]) -> None:
    """Define the envelope (`contracts.envelope.Envelope`) once, `components/schemas/
    EventEnvelope`, and make every event type's schema (`refs`) refer to it by `allOf`,
    narrowing only `type` and `schema_version` (constants) and `payload` (its model). The
    envelope keeps `additionalProperties: false`, so an unknown member is still refused,
    and one bad field gives one error (with `unevaluatedProperties` on each type, a bad
    envelope field gave two: the field, and the field again as unevaluated). The same JSON
    is valid as before; the document shrinks by about 50 kB.

    Raises:
        ValueError: two event types document an envelope field differently (one shared
            component would then misstate one of them).
    """
    from contracts.envelope import Envelope

    names = [n for n in Envelope.model_fields if n not in OWN_FIELDS]
    shared: dict[str, Any] | None = None
    envelope_required: list[str] = []
    for ref in refs:
        event = schemas[ref.rsplit("/", 1)[1]]
        fields = {name: event["properties"].pop(name) for name in names}
        if shared is None:
            shared = fields
        elif fields != shared:
            raise ValueError(f"{ref} documents the envelope fields differently")
        required = event.pop("required")
        envelope_required = required
        event["required"] = [name for name in required if name not in names]
        event["allOf"] = [{"$ref": f"#/components/schemas/{ENVELOPE_SCHEMA}"}]
        # the payload's own schema carries its docstring: say where, not the text again
        version = event["properties"]["schema_version"]
        event["properties"]["schema_version"] = _version_ref(schemas, version)
        head = event.get("description", "").split("\n\n", 1)[0]
        payload_name = event["properties"]["payload"]["$ref"].rsplit("/", 1)[1]
        event["description"] = f"{head} The payload: `{payload_name}`."
        event.pop("additionalProperties", None)
    if shared is None:
        return
    whole = Envelope.model_json_schema()["properties"]
    payload = {"description": "the event type's payload: an object, its schema is the type's"}
    schemas[ENVELOPE_SCHEMA] = {
        "title": ENVELOPE_SCHEMA,
        "description": inspect.cleandoc(Envelope.__doc__ or ""),
        "type": "object",
        "properties": {
            name: shared.get(name) or (payload if name == "payload" else whole[name])
            for name in Envelope.model_fields
        },
        "required": envelope_required,
        "additionalProperties": False,
    }


def _version_ref(schemas: dict[str, Any], version: dict[str, Any]) -> dict[str, str]:
    """A reference to `components/schemas/SchemaVersion<n>`, the `schema_version` constant
    every event type at version n declares (added on first use).

    Raises:
        ValueError: two types declare version n differently.
    """
    name = f"SchemaVersion{version['const']}"
    if schemas.setdefault(name, version) != version:
        raise ValueError(f"two event types declare {name} differently")
    return {"$ref": f"#/components/schemas/{name}"}


SHARED_PARAMETERS = (
    ("path", "game_id"),
    ("path", "tournament_id"),
    ("path", "league_id"),
    ("path", "table"),
    ("header", "Idempotency-Key"),
    ("header", "webhook-id"),
    ("header", "webhook-timestamp"),
    ("header", "webhook-signature"),
)
"""(in, name) of the parameters defined once, `components/parameters/<name>`: declared once
in code and used by many operations. A fixed list, not "what repeats", so an app with fewer
roles refers to the same components and serves the committed document's operations."""


def _share_parameters(document: dict[str, Any]) -> None:
    """Move each of `SHARED_PARAMETERS` into `components/parameters` and refer to it from
    every operation (`paths` and `webhooks`).

    Raises:
        ValueError: two operations declare one of them differently.
    """
    wanted = set(SHARED_PARAMETERS)
    shared = document.setdefault("components", {}).setdefault("parameters", {})
    for section in ("paths", "webhooks"):
        for operations in document.get(section, {}).values():
            for operation in operations.values():
                if "parameters" in operation:  # a new list: it may be a module constant's
                    operation["parameters"] = [
                        _shared(shared, p) if (p.get("in"), p.get("name")) in wanted else p
                        for p in operation["parameters"]
                    ]
    if not shared:
        del document["components"]["parameters"]


def _shared(shared: dict[str, Any], parameter: dict[str, Any]) -> dict[str, str]:
    """A reference to `parameter`'s entry of `shared` (added if new).

    Raises:
        ValueError: the entry of that name differs from `parameter`.
    """
    name = parameter["name"]
    if shared.setdefault(name, parameter) != parameter:
        raise ValueError(f"parameter {name} is declared differently by two operations")
    return {"$ref": f"#/components/parameters/{name}"}
