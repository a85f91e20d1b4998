"""The lean write's own parts (services/doors/ingest/http.py): `LeanBody` reads a body as
starlette's `Request.body` does (the same bytes, the same errors, read once), and the door
binds the game id for the logs of one write as `structlog.contextvars.bound_contextvars`
did (bound inside, what was bound before afterwards, also when the write raises).
Source: docs/profiles/request-cost.md."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
import structlog
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import ClientDisconnect, Request

from services.doors.ingest.http import IngestDoor, LeanBody
from services.usecases.authorize import WriteProof
from services.usecases.refusal import Refusal

Message = dict[str, Any]

_message = st.one_of(
    st.builds(
        lambda body, more, has_body: (
            {"type": "http.request", "body": body, "more_body": more}
            if has_body
            else {"type": "http.request", "more_body": more}
        ),
        st.binary(max_size=8),
        st.booleans(),
        st.booleans(),
    ),
    st.just({"type": "http.disconnect"}),
)


def _receiver(messages: list[Message]) -> Any:
    queue = list(messages)

    async def receive() -> Message:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    return receive


async def _reads(read: Any, times: int) -> list[object]:
    """What `times` calls of `read()` give: bytes, or the error's type and text."""
    out: list[object] = []
    for _ in range(times):
        try:
            out.append(await read())
        except (ClientDisconnect, RuntimeError) as error:
            out.append((type(error).__name__, str(error)))
    return out


@given(st.lists(_message, max_size=6))
def test_lean_body_reads_as_request_body(messages: list[Message]) -> None:
    scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
    ours = asyncio.run(_reads(LeanBody(_receiver(messages)), 3))
    theirs = asyncio.run(_reads(Request(scope, _receiver(messages)).body, 3))
    assert ours == theirs


class _Record:
    """A record use case that notes the logging context it runs in, then answers `outcome`
    (an exception is raised)."""

    def __init__(self, outcome: BaseException | None) -> None:
        self.outcome = outcome
        self.seen: dict[str, Any] = {}

    async def record(self, game_id: str, *_: Any, **__: Any) -> Any:
        self.seen = structlog.contextvars.get_contextvars()
        if self.outcome is not None:
            raise self.outcome
        return None


async def _body() -> bytes:
    return b""


@pytest.mark.parametrize("before", [{}, {"game_id": "outer", "request": "r-1"}])
@pytest.mark.parametrize(
    "outcome", [None, Refusal("invalid", "body.json", "not JSON", "body"), KeyError("x")]
)
def test_the_game_id_is_bound_for_one_write(
    before: dict[str, Any], outcome: BaseException | None
) -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(**before)
        record = _Record(outcome)
        door = IngestDoor(record, None)  # type: ignore[arg-type]
        with contextlib.suppress(KeyError):
            await door._recorded("tr-1", WriteProof(), _body, False)
        return record.seen, structlog.contextvars.get_contextvars()

    inside, after = asyncio.run(run())
    assert inside == {**before, "game_id": "tr-1"}
    assert after == before
