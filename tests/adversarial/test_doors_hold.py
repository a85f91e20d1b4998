"""Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): findings against the running HTTP stack: bounded bodies, authorization before any
parsing, one error shape (RFC 9457 problem details) on every 4xx/5xx.

The freeze cases are behaviour tests: the answer is a 413 or a 422 with a short body, and the
next ordinary request is answered normally; no timing is asserted.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from services.bootstrap import Roles, assemble, build
from services.platform.problems import PROBLEM_MEDIA_TYPE
from services.platform.settings import ServiceSettings
from tests.adversarial.conftest import example_game
from tests.web.conftest import Stack

SHORT = 2_000
"""Longest error answer (bytes) any hostile body may get."""

pytestmark = pytest.mark.redis


def assert_problem(response: httpx.Response, status: int, rule: str) -> dict[str, object]:
    """The answer is a short problem with `status` and `rule` (type naming the rule)."""
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"] == PROBLEM_MEDIA_TYPE
    assert len(response.content) < SHORT
    body: dict[str, object] = response.json()
    assert (body["status"], body["rule"], body["type"]) == (
        status,
        rule,
        f"urn:scoreledger:rule:{rule}",
    )
    assert isinstance(body["title"], str)
    return body


async def still_serves(stack: Stack) -> None:
    assert (await stack.client.get("/healthz")).status_code == 200
    assert (await stack.client.get("/games")).status_code == 200


async def test_a_body_over_the_limit_is_a_413_and_nothing_is_parsed(stack: Stack) -> None:
    # Finding: a 10 MB array of one-character strings froze the loop for minutes.
    huge = json.dumps(["x"] * 3_000_000).encode()
    assert len(huge) > stack.settings.max_body_bytes
    answer = await stack.client.post(
        "/games/g1/events", content=huge, headers={"content-type": "application/json"}
    )
    body = assert_problem(answer, 413, "body.too_large")
    assert body["field"] == "body"
    assert await stack.store.version("g1") == 0
    await still_serves(stack)


async def test_a_chunked_body_over_the_limit_is_a_413(stack: Stack) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(40):
            yield b" " * 65_536  # 2.5 MB in all, no Content-Length

    answer = await stack.client.post(
        "/games/g1/events", content=chunks(), headers={"content-type": "application/json"}
    )
    assert_problem(answer, 413, "body.too_large")
    await still_serves(stack)


def _counted(text: str, status: str) -> float:
    """Requests answered `status` in the `/metrics` text, any route (a length refused before
    routing counts as `unmatched`)."""
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("scoreledger_query_requests_total{") and f'status="{status}"' in line
    )


async def test_a_413_is_counted_as_a_413_in_metrics(stack: Stack) -> None:
    """Finding: a chunked body over the limit got a 413 but `/metrics` counted a 500 (the app
    saw the disconnect and failed inside the metrics middleware), so anyone could raise the
    5xx rate. A declared over-limit length is counted too."""

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(40):
            yield b" " * 65_536

    headers = {"content-type": "application/json"}
    chunked = await stack.client.post("/games/g1/events", content=chunks(), headers=headers)
    declared = await stack.client.post("/games/g1/events", content=b" " * 2_000_000)
    assert (chunked.status_code, declared.status_code) == (413, 413)
    text = (await stack.client.get("/metrics")).text
    assert (_counted(text, "413"), _counted(text, "500")) == (2.0, 0.0)


async def test_an_array_of_many_integers_is_a_short_422(stack: Stack) -> None:
    # Finding: a 0.3 MB array of 100k integers got a 12 MB answer.
    answer = await stack.client.post("/games/g1/events", json=list(range(100_000)))
    assert_problem(answer, 422, "body.shape")
    await still_serves(stack)


async def test_a_long_type_is_a_short_422(stack: Stack) -> None:
    event = example_game("g1")[0]
    event["type"] = "t" * 500_000
    answer = await stack.client.post("/games/g1/events", json=event)
    body = assert_problem(answer, 422, "schema.field")
    assert body["field"] == "type"


async def test_an_unauthorized_write_is_refused_before_its_body_is_read(stack: Stack) -> None:
    events = example_game("g1")
    created = await stack.client.post("/games/g1/events", json=events[:2])
    assert created.status_code == 201
    token = created.json()["write_token"]
    garbage = b"[" + b"{not json" * 90_000  # invalid, just under the body limit
    headers = {"content-type": "application/json"}
    missing = await stack.client.post("/games/g1/events", content=garbage, headers=headers)
    body = assert_problem(missing, 401, "auth.token_required")
    assert missing.headers["www-authenticate"] == "Bearer"
    assert body["field"] == "authorization"
    wrong = await stack.client.post(
        "/games/g1/events",
        content=garbage,
        headers={**headers, "Authorization": "Bearer " + "A" * 43},
    )
    assert_problem(wrong, 403, "auth.token_rejected")
    good = await stack.client.post(
        "/games/g1/events", json=events[2:3], headers={"Authorization": f"Bearer {token}"}
    )
    assert good.status_code == 201
    assert await stack.store.version("g1") == 3


async def test_framework_errors_are_problems_too(stack: Stack) -> None:
    bad_query = await stack.client.get("/games/g1/standings", params={"at_seq": "x" * 5_000})
    body = assert_problem(bad_query, 422, "request.invalid")
    assert body["field"] == "query.at_seq"
    assert "x" * 100 not in bad_query.text
    assert_problem(await stack.client.get("/no/such/route"), 404, "http.404")
    assert_problem(await stack.client.delete("/games/g1/events"), 405, "http.405")
    assert_problem(await stack.client.get("/games/g1/standings"), 404, "read.game_not_found")


@pytest.mark.parametrize(
    "roles",
    [
        Roles(ingest=False, inbox=False, projector=False),
        Roles(query=False, inbox=False, projector=False),
    ],
    ids=["query", "ingest"],
)
async def test_every_app_has_the_body_limit_outermost(roles: Roles) -> None:
    # No Redis is touched: the limit answers before any route (or 404) is reached.
    settings = ServiceSettings(redis_url="redis://127.0.0.1:1/0", max_body_bytes=4096)
    app = assemble(build(settings), roles).app
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        answer = await client.post("/anything", content=b"x" * 5_000)
    assert_problem(answer, 413, "body.too_large")
    assert answer.json()["detail"] == "the request body is limited to 4096 bytes"
