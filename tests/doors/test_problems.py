"""RFC 9457 problem details: the shape, the media type, and bounded quoting of any input.

Source: docs/decisions/0010-one-error-style.md ("One error shape"; "a 10 MB `type` gave a 21 MB 422").
"""

from __future__ import annotations

import json

import httpx
import pytest
from fastapi import FastAPI
from openapi_spec_validator import OpenAPIV31SpecValidator
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from contracts.events import parse_event
from domain.errors import RuleViolation
from services.platform.problems import (
    MAX_DETAIL_CHARS,
    PROBLEM_MEDIA_TYPE,
    Problem,
    ProblemResponse,
    from_rule_violation,
    from_validation_error,
    internal_error,
    problem,
    problem_body,
    problem_responses,
    quote,
)

EVENT = {
    "event_id": "7326ed61-faec-45a1-bf87-382506602686",
    "game_id": "g-1",
    "seq": 2,
    "type": "game.ended",
    "schema_version": 1,
    "occurred_at": "2026-11-30T18:01:14Z",
    "actor": "table-7",
    "payload": {},
}


def _validation_error(raw: dict[str, object]) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        parse_event(raw)
    return info.value


def test_a_problem_has_the_rfc_9457_members_and_the_rule_and_field() -> None:
    body = json.loads(problem_body(problem(409, "log.seq_conflict", "seq", "expected 4, got 9")))
    assert body == {
        "type": "urn:scoreledger:rule:log.seq_conflict",
        "title": "Conflict",
        "status": 409,
        "detail": "expected 4, got 9",
        "rule": "log.seq_conflict",
        "field": "seq",
    }


def test_without_a_rule_the_type_is_about_blank_and_extensions_are_kept() -> None:
    body = json.loads(problem_body(problem(404, None, None, "no game g-9", current_version=3)))
    assert body["type"] == "about:blank"
    assert body["title"] == "Not Found"
    assert body["current_version"] == 3
    assert "rule" not in body  # null members are left out


def test_a_non_error_status_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="400-599"):
        problem(200, None, None, "fine")


def test_quote_keeps_a_short_prefix_and_says_the_length() -> None:
    assert quote("abc") == "'abc'"
    assert quote("x" * 1000, limit=5) == "'xxxxx'… (1000 characters)"


def test_a_rule_violation_becomes_a_422_naming_its_rule_and_field() -> None:
    item = from_rule_violation(
        RuleViolation("log.seq_gap", "expected seq 4, got 9", "seq"), index=2
    )
    assert (item.status, item.rule, item.field, item.index) == (422, "log.seq_gap", "seq", 2)
    assert item.type == "urn:scoreledger:rule:log.seq_gap"


def test_a_huge_unknown_type_is_quoted_only_as_a_prefix() -> None:
    error = _validation_error({**EVENT, "type": "x" * 10_000_000})
    body = problem_body(from_validation_error(error))
    assert len(body) < 600
    assert json.loads(body)["field"] == "type"
    assert "10000000 characters" in json.loads(body)["detail"]


def test_a_huge_unknown_field_name_is_clipped() -> None:
    error = _validation_error({**EVENT, "k" * 1_000_000: 1})
    body = json.loads(problem_body(from_validation_error(error)))
    assert body["detail"] == "unknown field"
    assert len(body["field"]) <= 120


def test_a_validation_error_names_the_field_without_the_union_tag() -> None:
    error = _validation_error({**EVENT, "seq": True})
    item = from_validation_error(error, index=0)
    assert (item.status, item.field, item.rule, item.index) == (422, "seq", "contract.invalid", 0)


def test_a_missing_type_is_named() -> None:
    item = from_validation_error(_validation_error({"seq": 1}))
    assert (item.field, item.detail) == ("type", "an event needs a type")


def test_long_details_are_clipped_to_the_model_bound() -> None:
    item = problem(422, "r", "f", "y" * 5000)
    assert item.detail is not None
    assert len(item.detail) == MAX_DETAIL_CHARS


def test_an_internal_error_says_nothing_of_the_failure() -> None:
    body = json.loads(problem_body(internal_error()))
    assert body["status"] == 500
    assert body["rule"] == "server.internal"


async def test_the_response_carries_the_problem_media_type_and_headers() -> None:
    def refuse(request: Request) -> Response:
        return ProblemResponse(
            problem(401, "auth.token_missing", "authorization", "send Authorization: Bearer"),
            headers={"WWW-Authenticate": "Bearer"},
        )

    transport = httpx.ASGITransport(app=Starlette(routes=[Route("/", refuse)]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.get("/")
    assert answer.status_code == 401
    assert answer.headers["content-type"] == PROBLEM_MEDIA_TYPE
    assert answer.headers["www-authenticate"] == "Bearer"
    assert Problem.model_validate(answer.json()).rule == "auth.token_missing"


def test_problem_responses_document_the_errors_in_valid_openapi() -> None:
    api = FastAPI()

    @api.post("/x", responses=problem_responses(401, 413, 422))
    async def x() -> None:
        return None

    document = api.openapi()
    assert list(OpenAPIV31SpecValidator(document).iter_errors()) == []
    answers = document["paths"]["/x"]["post"]["responses"]
    schema = answers["413"]["content"][PROBLEM_MEDIA_TYPE]["schema"]
    assert {"type", "title", "status", "detail", "rule", "field", "index", "errors"} <= set(
        schema["properties"]
    )
    assert answers["401"]["description"] == "Unauthorized"
