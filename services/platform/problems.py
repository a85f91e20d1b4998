"""One error shape for every door: RFC 9457 problem details (`application/problem+json`).

Wire shape::

    {"type": "urn:scoreledger:rule:correction.unknown_player",
     "title": "Unprocessable Content", "status": 422, "detail": "no player 'zoe' in this game",
     "rule": "correction.unknown_player", "field": "payload.player_id", "index": 2}

`type` names the rule (`about:blank` when there is none, as RFC 9457 §4.2.1 says); `title` is
the status phrase, the same for every occurrence; `rule` and `field` are extension members
(§3.2), the same rule ids the dead letters carry. Nothing the client sent is quoted beyond a
short prefix (`quote`): a 10 MB `type` gets a 422 of a few hundred bytes. Source: docs/decisions/0010-one-error-style.md
("One error shape"), RFC 9457.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.responses import Response

from domain.errors import RuleViolation

PROBLEM_MEDIA_TYPE = "application/problem+json"
RULE_TYPE_PREFIX = "urn:scoreledger:rule:"
QUOTE_CHARS = 40
"""How much of any client input an error message may quote."""
MAX_DETAIL_CHARS = 1200
"""Most characters of a problem's `detail` (a refusal lists what is valid, bounded in bytes)."""
MAX_FIELD_CHARS = 120
MAX_ERRORS = 10
"""Most schema errors a 422 lists (the rest are counted in `detail`)."""
MAX_MSG_CHARS = 120


class ProblemError(BaseModel):
    """One schema error of a 422's `errors`: pydantic's error type, where, and a short message
    (never the input)."""

    model_config = ConfigDict(frozen=True)

    type: str
    loc: list[str | int]
    msg: str


class Problem(BaseModel):
    """An RFC 9457 problem details object (`application/problem+json`), the one error shape of
    every door: HTTP answers it, an inbox dead letter's `reason` carries the same members.

    Fields:
        type: a URI naming the problem: `urn:scoreledger:rule:<rule>` or `about:blank`.
        title: the HTTP status phrase (e.g. `Conflict`).
        status: the HTTP status code, 400-599.
        detail: one sentence for this occurrence, at most 1200 characters.
        rule: the stable rule id (`log.expected_version`, `auth.token_required`,
            `schema.field`, a game's rule id such as `correction.unknown_player`) or null.
        field: the dotted field at fault (`payload.amount`, `seq`, `body`) or null.
        index: the 0-based position in a batch (a JSON array body) of the event at fault, or
            null (one envelope, or no event at fault).
        expected: on a 409 `log.expected_version`: the version the event at `index` says the
            game is at (its `seq - 1`).
        actual: on a 409: the version the game holds.
        version: on a 409: the version the game holds (reload from it and send again).
        errors: on a 422 of a schema refusal: at most 10 errors (type, loc, msg).
    Further members are allowed, as RFC 9457 §3.2 permits (a 503 `append.replicas_unconfirmed`
    carries `wanted`, `acked`; the rate limits of replays carry their own).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    type: str = "about:blank"
    title: str
    status: int = Field(ge=400, le=599)
    detail: str | None = Field(default=None, max_length=MAX_DETAIL_CHARS)
    rule: str | None = None
    field: str | None = None
    index: int | None = Field(default=None, ge=0)
    expected: int | None = None
    actual: int | None = None
    version: int | None = None
    errors: list[ProblemError] | None = None


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """`value` as a short quoted prefix for an error message: `'abc…' (10485760 characters)`.

    Only the first `limit` characters of `str(value)` are kept; longer values say their length.
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


def _clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at a word boundary when one is in the second half."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    return (head[:space].rstrip(",;:") if space > limit // 2 else head) + "…"


def problem(
    status: int,
    rule: str | None,
    field: str | None,
    message: str | None,
    *,
    index: int | None = None,
    **extensions: Any,
) -> Problem:
    """A problem for (status, rule, field, message); `message` and `field` are clipped.

    Raises:
        ValueError: `status` is not an HTTP error status (400-599).
    """
    if not 400 <= status <= 599:
        raise ValueError(f"problem status must be 400-599, got {status}")
    return Problem(
        type=RULE_TYPE_PREFIX + rule if rule else "about:blank",
        title=HTTPStatus(status).phrase,
        status=status,
        detail=None if message is None else _clip(message, MAX_DETAIL_CHARS),
        rule=rule,
        field=None if field is None else _clip(field, MAX_FIELD_CHARS),
        index=index,
        **extensions,
    )


def from_rule_violation(error: RuleViolation, *, index: int | None = None) -> Problem:
    """422 for an event the rules refuse, with the violation's rule and field."""
    return problem(422, error.rule, error.field, error.message, index=index)


def bounded_errors(errors: Any) -> list[dict[str, Any]]:
    """At most `MAX_ERRORS` of `errors` (pydantic's error dicts), each only `type`, `loc`
    (str/int parts, at most 120 characters each) and `msg` (clipped): nothing of the input.
    The `errors` member of every 422 that lists schema errors, on every door."""
    out: list[dict[str, Any]] = []
    for error in list(errors or [])[:MAX_ERRORS]:
        if not isinstance(error, dict):
            continue
        loc = [p if isinstance(p, int) else str(p)[:MAX_MSG_CHARS] for p in error.get("loc", ())]
        out.append(
            {
                "type": str(error.get("type", ""))[:MAX_MSG_CHARS],
                "loc": loc[:20],
                "msg": str(error.get("msg", ""))[:MAX_MSG_CHARS],
            }
        )
    return out


def _field_of(loc: tuple[int | str, ...]) -> str:
    # The discriminated union adds the tag (`game.ended`) to loc; it is not a field.
    parts = [str(p) for p in loc if not (isinstance(p, str) and "." in p)]
    return ".".join(parts) or "body"


def from_validation_error(
    error: ValidationError, *, index: int | None = None, rule: str = "contract.invalid"
) -> Problem:
    """422 for input that does not match the contract: the first error's field and message,
    and `errors` (`bounded_errors`: each error's type, loc and clipped msg).

    pydantic messages can embed the input (an unknown union tag is quoted whole); that message
    is rewritten with `quote`, and no other input is included.
    """
    first = error.errors(include_url=False)[0]
    kind = first["type"]
    if kind == "union_tag_invalid":
        field, message = "type", f"unknown event type {quote(first.get('ctx', {}).get('tag'))}"
    elif kind == "union_tag_not_found":
        field, message = "type", "an event needs a type"
    else:
        field = _field_of(first["loc"])
        message = first["msg"]
        if kind == "extra_forbidden":
            message = "unknown field"
    more = error.error_count() - 1
    if more:
        message += f" (and {more} more error{'s' if more > 1 else ''})"
    errors = bounded_errors(error.errors(include_url=False, include_input=False))
    return problem(422, rule, field, message, index=index, errors=errors)


def internal_error() -> Problem:
    """500 without any detail of the failure (it is logged, never sent)."""
    return problem(500, "server.internal", None, "the server failed; the error is logged")


RETRY_AFTER_S = 1
"""`Retry-After` (seconds) of a 503 while the storage is unreachable."""


def storage_unavailable(reason: str) -> Problem:
    """503 `service.storage_unavailable`: Redis cannot be reached or cannot serve right now
    (refused, timed out, loading, cluster down, no connection free); retrying is safe (appends
    are idempotent by event id). `reason` names the fault class, never an address or secret."""
    return problem(
        503,
        "service.storage_unavailable",
        None,
        f"the event store is unavailable ({reason}); retry after {RETRY_AFTER_S} s",
    )


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI `responses=` entries documenting `statuses` as `application/problem+json`
    `Problem`s, e.g. `@router.post(..., responses=problem_responses(401, 403, 409, 413, 422))`."""
    schema = Problem.model_json_schema()
    # one self-contained schema (a route's answer has no `$defs` to point into); the published
    # document refers every problem answer to `components/schemas/Problem` instead
    defs = schema.pop("$defs", {})
    errors = schema["properties"]["errors"]["anyOf"][0]
    errors["items"] = defs[errors["items"]["$ref"].rsplit("/", 1)[1]]
    return {
        status: {
            "description": HTTPStatus(status).phrase,
            "content": {PROBLEM_MEDIA_TYPE: {"schema": schema}},
        }
        for status in statuses
    }


def problem_body(item: Problem) -> bytes:
    """The UTF-8 JSON body of `item`, null members left out (RFC 9457 makes all optional)."""
    data = item.model_dump(mode="json", exclude_none=True)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "backslashreplace"
    )


class ProblemResponse(Response):
    """A Starlette/FastAPI response carrying a `Problem` as `application/problem+json`."""

    media_type = PROBLEM_MEDIA_TYPE

    def __init__(self, item: Problem, headers: dict[str, str] | None = None) -> None:
        """`headers` e.g. `{"WWW-Authenticate": "Bearer"}` on a 401."""
        super().__init__(content=problem_body(item), status_code=item.status, headers=headers)
