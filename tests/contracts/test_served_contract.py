"""The served contract is the committed one: `GET /openapi.json` of the app, as `scoreledger
serve` builds it, is byte for byte `contracts/openapi.json` (it was FastAPI's raw document:
invalid 3.1 with `itemSchema`, FastAPI's `HTTPValidationError` for 422, any object as the
append body, CSV as `text/plain`, no 404/503), it validates, and `/docs` reads it."""

from __future__ import annotations

import json
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from services.bootstrap import Roles, build_app
from services.doors.query.openapi import COMMITTED, SHARED_PARAMETERS
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import corrected

FULL = Roles(inbox=False)
MAX_OPENAPI_BYTES = 250_000
"""A ceiling against growth: 280,126 bytes with the event envelope (`EventEnvelope`) and the
common parameters (`components/parameters`) defined once, 346,798 before; under 250 kB with
the routes' own problem answers, `Retry-After`, the write doors' body models, the catalogue's
id types and the replay `at_seq` defined once too (`services.doors.query.openapi_share`)."""
"""The committed document's bound (it was 564,820 bytes with the problem shape inlined in
every answer; 323,813 with it defined once and the plain answers shared; 333,419 with the
catalogue's card ids listed)."""


def resolved(document: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """`answer`, or the `components/responses` entry its `$ref` names."""
    ref = answer.get("$ref")
    if ref is None:
        return answer
    found: dict[str, Any] = document["components"]["responses"][ref.rsplit("/", 1)[1]]
    return found


async def _get(roles: Roles, path: str) -> httpx.Response:
    # no lifespan: serving the document touches no Redis
    app = build_app(roles, ServiceSettings(_env_file=None))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        return await client.get(path)


async def test_openapi_json_is_the_committed_file_and_validates() -> None:
    served = await _get(FULL, "/openapi.json")
    assert served.status_code == 200
    committed = COMMITTED.read_text(encoding="utf-8")
    assert served.json() == json.loads(committed)
    assert json.dumps(served.json(), indent=2, ensure_ascii=False) + "\n" == committed
    validate(served.json())  # openapi-spec-validator, OpenAPI 3.1
    document = served.json()
    append = document["paths"]["/games/{game_id}/events"]["post"]
    assert "HTTPValidationError" not in document["components"]["schemas"]
    unprocessable = resolved(document, append["responses"]["422"])
    assert set(unprocessable["content"]) == {"application/problem+json"}
    assert {} in append["security"]  # creating a game needs no token (the 201 returns one)
    live = document["paths"]["/games/{game_id}/live"]["get"]["responses"]
    assert "404" in live
    listing = document["paths"]["/games"]["get"]["responses"]["503"]
    assert "Retry-After" in resolved(document, listing)["headers"]


def test_the_problem_shape_is_defined_once_and_every_problem_answer_refers_to_it() -> None:
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    text = COMMITTED.read_text(encoding="utf-8")
    assert text.count("An RFC 9457 problem details object") == 1
    answers = [
        resolved(document, answer)
        for operations in document["paths"].values()
        for operation in operations.values()
        for answer in operation["responses"].values()
    ]
    problems = [a.get("content", {}).get("application/problem+json") for a in answers]
    problems = [p for p in problems if p is not None]
    assert len(problems) > 100
    assert all(p == {"schema": {"$ref": "#/components/schemas/Problem"}} for p in problems)
    assert len(text.encode()) <= MAX_OPENAPI_BYTES


def test_each_operation_id_is_its_route_function_s_name_and_unique() -> None:
    """Generated clients name a call by its operationId: `post_events`, not FastAPI's
    `post_events_games__game_id__events_post`; two routes never share one."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    ids = [
        operation["operationId"]
        for operations in document["paths"].values()
        for operation in operations.values()
    ]
    assert len(ids) == len(set(ids)) > 40
    assert all(i.isidentifier() and "__" not in i for i in ids)
    assert document["paths"]["/games/{game_id}/events"]["post"]["operationId"] == "post_events"


async def test_docs_reads_the_served_document() -> None:
    page = await _get(FULL, "/docs")
    assert page.status_code == 200
    assert "url: '/openapi.json'" in page.text


async def test_every_role_mix_serves_a_valid_document() -> None:
    """A role alone (as deployed) serves the committed document's part for its routes."""
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    for roles in (
        Roles(ingest=False, inbox=False, projector=False),
        Roles(query=False, inbox=False, projector=False),
    ):
        document = (await _get(roles, "/openapi.json")).json()
        validate(document)
        for path, operations in document["paths"].items():
            for method, operation in operations.items():
                assert operation == committed["paths"][path][method], (path, method)


ENVELOPE_FIELDS = (
    "event_id",
    "game_id",
    "seq",
    "type",
    "schema_version",
    "occurred_at",
    "recorded_at",
    "actor",
    "correlation_id",
    "causation_id",
    "payload",
)


def test_the_event_envelope_is_defined_once_and_every_event_type_refers_to_it() -> None:
    """Each `*Event` schema of the append body names `EventEnvelope` (every envelope field,
    unknown members refused) and narrows only its own `type`, `schema_version` and
    `payload`."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    envelope = schemas["EventEnvelope"]
    assert tuple(envelope["properties"]) == ENVELOPE_FIELDS
    assert envelope["additionalProperties"] is False
    required = {"event_id", "game_id", "seq", "type", "occurred_at", "actor", "payload"}
    assert set(envelope["required"]) == required
    mapping = schemas["Event"]["discriminator"]["mapping"]
    assert len(mapping) > 30
    for ref in mapping.values():
        event = schemas[ref.rsplit("/", 1)[1]]
        assert event["allOf"] == [{"$ref": "#/components/schemas/EventEnvelope"}], ref
        assert set(event["properties"]) == {"type", "schema_version", "payload"}, ref
        assert "additionalProperties" not in event


def test_an_event_validates_against_the_documented_append_body() -> None:
    """The shared envelope changes nothing on the wire: a real event passes the documented
    body schema, an unknown member or one bad envelope field gives one error naming it."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    event = corrected("g1", 2, "ann", 3).to_wire()
    union = {"$ref": "#/components/schemas/Event", "components": document["components"]}
    assert list(Draft202012Validator(union).iter_errors(event)) == []
    # the union is an OpenAPI `oneOf` with a discriminator: a validator reports at its
    # `oneOf`, so one bad field is checked on the type's own schema, as a generator reads it
    own = document["components"]["schemas"]["Event"]["discriminator"]["mapping"][event["type"]]
    check = Draft202012Validator({"$ref": own, "components": document["components"]})
    assert list(check.iter_errors(event)) == []
    extra = list(check.iter_errors({**event, "colour": "red"}))
    assert [e.validator for e in extra] == ["additionalProperties"]
    bad = list(check.iter_errors({**event, "actor": ""}))
    assert [list(e.absolute_path) for e in bad] == [["actor"]]


def test_game_and_tournament_routes_name_their_own_bearer_token() -> None:
    """The game routes take the game's write token, the tournament and league routes their
    organiser's (or a judge's, a table's): two schemes, each route naming its own. One
    scheme name for both made the last one's description (the organiser's) every route's."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    schemes = document["components"]["securitySchemes"]

    def described(path: str, method: str = "post") -> str:
        security = document["paths"][path][method]["security"]
        names = {name for requirement in security for name in requirement}
        assert len(names) == 1, (path, names)
        return str(schemes[names.pop()]["description"])

    assert "game's write token" in described("/games/{game_id}/events")
    assert "organiser" not in described("/games/{game_id}/events")
    tournament = described("/tournaments/{tournament_id}/tables/{table}/result")
    assert all(role in tournament for role in ("organiser", "judge", "table"))
    assert "league" in described("/leagues/{league_id}/games")


def test_the_common_parameters_are_defined_once() -> None:
    """The ids in paths, `Idempotency-Key` and the webhook headers are each one
    `components/parameters` entry that every operation refers to."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    shared = document["components"]["parameters"]
    listed = {(p["in"], p["name"]) for n, p in shared.items() if n != "at_seq_replay"}
    assert listed == set(SHARED_PARAMETERS)  # at_seq_replay: tests/contracts/test_openapi_shared.py
    operations = [
        operation
        for section in ("paths", "webhooks")
        for operations in document[section].values()
        for operation in operations.values()
    ]
    inline = {
        (p["in"], p["name"])
        for operation in operations
        for p in operation.get("parameters", [])
        if "$ref" not in p
    }
    assert inline & set(SHARED_PARAMETERS) == set()
    refs = [p["$ref"] for o in operations for p in o.get("parameters", []) if "$ref" in p]
    assert refs.count("#/components/parameters/Idempotency-Key") == 12
