"""The pieces every stream write door shares (tournaments, leagues): the Bearer and
`Idempotency-Key` parameters, the request body's schema and parsing, the answer to a
write, and the mapping of a write's failures to problems (RFC 9457;
docs/decisions/0010-one-error-style.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, TypeVar

from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ValidationError

from services.doors.asgi.http_errors import refusal_problem
from services.platform.problems import ProblemResponse, from_validation_error, problem
from services.usecases.authorize import Grant, WriteProof
from services.usecases.idempotency import KEY_MAX, check_key
from services.usecases.refusal import Refusal

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="OrganiserToken",  # not the game routes' scheme (another token)
    description="on tournament routes, the tournament's organiser token, or a judge's or a "
    "table's where the route says so; on league routes, the league's organiser token: chosen "
    "by its creator, or returned in the 201 that created it",
)
Bearer = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
Key = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description=f"a request id of the client's choosing (1 to {KEY_MAX} visible ASCII "
        "characters): a retry with the same key answers as the stored write did; the key "
        "with another request is 422 idempotency.key_reused",
    ),
]
M = TypeVar("M", bound=BaseModel)
P = TypeVar("P", bound=BaseModel)


def token(bearer: HTTPAuthorizationCredentials | None) -> str | None:
    """The Bearer credentials, or None when the request carries none."""
    return bearer.credentials if bearer else None


BODY_COMPONENTS = "x-components"
"""The `requestBody` member carrying the body's schemas until the published document moves
them to `components/schemas` (`services.doors.query.openapi_share.share_body_models`)."""


def body(model: type[M]) -> dict[str, Any]:
    """The OpenAPI `requestBody` of a door that reads `model` from the raw request: a `$ref`
    to `components/schemas/<model>`, the model's and its nested models' schemas carried in
    `x-components` (a route's `openapi_extra` cannot add components itself)."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    components = {**schema.pop("$defs", {}), model.__name__: schema}
    return {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
        },
        BODY_COMPONENTS: components,
    }


async def parse(model: type[M], request: Request) -> M:
    """The body as `model`; raises `ValidationError` (answered 422 `request.invalid`)."""
    return model.model_validate_json(await request.body())


def written(
    id_field: str, stream_id: str, version: int, status: int = 200, token: str | None = None
) -> JSONResponse:
    """A write's answer: `{id_field: stream_id, "version": version}`, plus `organiser_token`
    when the write created the stream without the caller choosing one."""
    answer: dict[str, object] = {id_field: stream_id, "version": version}
    if token is not None:
        answer["organiser_token"] = token
    return JSONResponse(answer, status_code=status)


def failure(error: Exception, unknown: type[Exception], rule: str, field: str) -> ProblemResponse:
    """The problem for a write's failure: a `Refusal` as the games' (401/403/409/422), an
    `unknown` stream 404 `rule` naming `field`, a `ValidationError` 422 `request.invalid`."""
    if isinstance(error, Refusal):
        return refusal_problem(error)
    if isinstance(error, unknown):
        noun = rule.split(".", 1)[0]
        return ProblemResponse(problem(404, rule, field, f"no such {noun}"))
    assert isinstance(error, ValidationError)
    return ProblemResponse(from_validation_error(error, rule="request.invalid"))


class StreamState(Protocol):
    """What a write's answer needs of a stream's folded state: its `seq` (the version); the
    stream id is read from the kind's id field."""

    @property
    def seq(self) -> int: ...


@dataclass(frozen=True, slots=True)
class StreamDoor:
    """The write-door pieces of one stream kind, so every kind's doors answer alike:
    `id_field` (`tournament_id`), `unknown` (the use cases' unknown-stream error) and `rule`
    (its 404 rule, `tournament.not_found`)."""

    id_field: str
    unknown: type[Exception]
    rule: str

    @property
    def failures(self) -> tuple[type[Exception], ...]:
        """What a write handler catches and answers with `failure`."""
        return (Refusal, self.unknown, ValidationError)

    def failure(self, error: Exception) -> ProblemResponse:
        """The problem of a write's failure (see `failure`)."""
        return failure(error, self.unknown, self.rule, self.id_field)

    def written(
        self, state: StreamState, status: int = 200, token: str | None = None
    ) -> JSONResponse:
        """The answer of a write that left the stream at `state` (see `written`)."""
        return written(self.id_field, str(getattr(state, self.id_field)), state.seq, status, token)

    async def create(
        self,
        request: Request,
        bearer: HTTPAuthorizationCredentials | None,
        idempotency_key: str | None,
        new: tuple[type[M], type[P]],
        may_create: Callable[[WriteProof], Grant],
        create: Callable[[str, P, Grant, str | None], Awaitable[tuple[StreamState, str | None]]],
    ) -> JSONResponse | ProblemResponse:
        """The creating write of a stream kind: the creator's proof checked before the body
        is read (docs/decisions/0009-one-authorization-on-every-write.md), the
        `Idempotency-Key`, then the body read as `new[0]` (the stream id and the created
        event's fields) and split into the stream id and `new[1]` (the created payload);
        `create` appends it and returns the state and the organiser token when generated.
        Answers 201 (`written`), or the failure's problem."""
        body, created = new
        try:
            grant = may_create(WriteProof(token(bearer), request.headers.get("x-creator-key")))
            key = check_key(idempotency_key)
            sent = await parse(body, request)
            settings = created(**sent.model_dump(exclude={self.id_field}))
            state, organiser_token = await create(
                str(getattr(sent, self.id_field)), settings, grant, key
            )
        except self.failures as error:
            return self.failure(error)
        return self.written(state, 201, organiser_token)

    async def append(
        self,
        target: tuple[str, Request, HTTPAuthorizationCredentials | None, str | None],
        authorize: Callable[[str, str | None], Awaitable[str]],
        body: type[M],
        act: Callable[[str, M, str | None], Awaitable[StreamState]],
        status: int = 200,
    ) -> JSONResponse | ProblemResponse:
        """A later write of a stream kind: `target` (the stream id, the request, its Bearer,
        its `Idempotency-Key`); `authorize` checks the token before the body is read and
        returns the digest to append with; the body read as `body`; `act(digest, body, key)`
        appends and returns the state reached. Answers `status` (`written`), or the failure's
        problem."""
        stream_id, request, bearer, idempotency_key = target
        try:
            credential = await authorize(stream_id, token(bearer))
            key = check_key(idempotency_key)
            sent = await parse(body, request)
            state = await act(credential, sent, key)
        except self.failures as error:
            return self.failure(error)
        return self.written(state, status)
