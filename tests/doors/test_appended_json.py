"""The 201 body of a write (`http.appended_json`) is byte for byte what `JSONResponse` renders
of `AppendResult.to_dict()` (with `write_token` last), for UUID event ids, duplicates, a token
and event ids JSON must escape; the lean and FastAPI answers' headers are checked in
test_lean_write.py. Source: docs/profiles/hot-path-profiles.md (the response per write)."""

from __future__ import annotations

import uuid

import pytest
from fastapi.responses import JSONResponse

from services.doors.ingest.http import appended_json
from services.ports.eventlog import AppendedEvent, AppendResult


def _rendered(result: AppendResult, token: str | None) -> bytes:
    out = result.to_dict()
    if token is not None:
        out["write_token"] = token
    return bytes(JSONResponse(out, status_code=201).body)


def _result(ids: list[str], duplicate_every: int = 3) -> AppendResult:
    events = tuple(
        AppendedEvent(
            event_id,
            seq,
            None if seq % duplicate_every == 0 else f"{seq}-0",
            seq % duplicate_every == 0,
        )
        for seq, event_id in enumerate(ids, start=1)
    )
    return AppendResult(events, len(ids) + 7)


@pytest.mark.parametrize("token", [None, "tok-" + "x" * 40, 'é"\\\n🎲'])
@pytest.mark.parametrize(
    "ids",
    [
        [str(uuid.uuid4()) for _ in range(50)],
        [str(uuid.uuid4())],
        ['quote"d', "back\\slash", "ctl\x01", "zoë 🎲", "\u2028"],
    ],
)
def test_appended_json_is_what_json_response_renders(ids: list[str], token: str | None) -> None:
    result = _result(ids)
    assert appended_json(result, token) == _rendered(result, token)
