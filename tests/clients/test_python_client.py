"""The Python client (contracts/client/) on an in-process fake service (httpx.MockTransport):
byte-identical resends, retries of lost answers and 503s, typed problems, SSE frames and the
resume with `Last-Event-ID`, and the import boundary (contracts and httpx only)."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from contracts.client import (
    Client,
    GaveUp,
    Outbox,
    ProblemError,
    new_write_token,
    parse_frames,
)
from contracts.events import parse_event_json

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "contracts" / "examples" / "penumbra-3p.jsonl"
LINES = [line for line in LOG.read_bytes().splitlines() if line.strip()]
GAME = "pen-demo-3p"


def outbox_of(count: int) -> Outbox:
    box = Outbox(GAME)
    for raw in LINES[:count]:
        box.add(parse_event_json(raw), raw)
    return box


def created(body: bytes, duplicate: bool = False) -> httpx.Response:
    events = json.loads(body)
    events = events if isinstance(events, list) else [events]
    appended = [
        {"event_id": e["event_id"], "seq": e["seq"], "duplicate": duplicate} for e in events
    ]
    return httpx.Response(201, json={"appended": appended, "version": events[-1]["seq"]})


def test_a_lost_answer_is_resent_byte_for_byte_and_the_duplicate_counts_as_stored() -> None:
    bodies: list[bytes] = []

    def service(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        if len(bodies) == 1:  # stored, then the answer is lost
            raise httpx.ReadError("lost", request=request)
        return created(request.content, duplicate=True)

    waits: list[float] = []
    token = new_write_token()
    box = outbox_of(3)
    with Client("http://t", token, transport=httpx.MockTransport(service), sleep=waits.append) as c:
        (answer,) = c.send(box, batch_size=10)
    assert len(bodies) == 2
    assert bodies[0] == bodies[1] == b"[" + b",".join(LINES[:3]) + b"]"
    assert [e.seq for e in answer.events] == [1, 2, 3]
    assert all(e.duplicate for e in answer.events)
    assert answer.version == 3
    assert len(box) == 0
    assert waits == [0.2]  # the first backoff
    assert len(token) == 43


def test_a_503_is_retried_after_its_retry_after_and_the_token_is_sent() -> None:
    seen: list[httpx.Request] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            problem = {"type": "about:blank", "title": "Service Unavailable", "status": 503}
            return httpx.Response(503, json=problem, headers={"retry-after": "2"})
        return created(request.content)

    waits: list[float] = []
    with Client(
        "http://t", "t" * 40, transport=httpx.MockTransport(service), sleep=waits.append
    ) as c:
        c.send(outbox_of(2))
    assert waits == [2.0]
    assert [r.headers["authorization"] for r in seen] == ["Bearer " + "t" * 40] * 2
    assert seen[0].url.path == "/games/pen-demo-3p/events"


def test_a_refusal_raises_the_typed_problem_and_keeps_the_batch() -> None:
    body = {
        "type": "urn:scoreledger:rule:log.expected_version",
        "title": "Conflict",
        "status": 409,
        "detail": "expected seq 3, got 4",
        "rule": "log.expected_version",
        "field": "seq",
        "index": 1,
        "expected": 3,
        "actual": 4,
    }
    service = httpx.MockTransport(lambda request: httpx.Response(409, json=body))
    box = outbox_of(2)
    with (
        Client("http://t", transport=service, sleep=lambda s: None) as c,
        pytest.raises(ProblemError) as caught,
    ):
        c.send(box)
    error = caught.value
    assert (error.status, error.rule, error.field, error.index) == (
        409,
        "log.expected_version",
        "seq",
        1,
    )
    assert error.extra == {"expected": 3, "actual": 4}
    assert len(box) == 2  # nothing acknowledged


def test_a_problem_body_that_is_not_json_still_gives_the_status() -> None:
    error = ProblemError.from_response(502, b"<html>bad gateway</html>")
    assert (error.status, error.rule, error.detail) == (502, None, "<html>bad gateway</html>")


def test_retryable_faults_give_up_after_the_attempts() -> None:
    calls: list[int] = []

    def service(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.ConnectError("down", request=request)

    waits: list[float] = []
    with (
        Client(
            "http://t", transport=httpx.MockTransport(service), attempts=4, sleep=waits.append
        ) as c,
        pytest.raises(GaveUp) as caught,
    ):
        c.send(outbox_of(1))
    assert len(calls) == 4
    assert waits == [0.2, 0.4, 0.8]
    assert isinstance(caught.value.last, httpx.ConnectError)


def test_dry_run_is_asked_by_the_query_parameter() -> None:
    urls: list[httpx.URL] = []

    def service(request: httpx.Request) -> httpx.Response:
        urls.append(request.url)
        return created(request.content)

    _, body = outbox_of(1).batch(1)
    with Client("http://t", transport=httpx.MockTransport(service)) as c:
        c.append(GAME, body, dry_run=True)
    assert urls[0].params["dry_run"] == "true"


def test_the_outbox_refuses_a_changed_resend_and_another_game() -> None:
    box = outbox_of(1)
    first = parse_event_json(LINES[0])
    box.add(first, LINES[0])  # the same bytes again: kept once
    assert len(box) == 1
    with pytest.raises(ValueError, match="other bytes"):
        box.add(first, LINES[0] + b" ")
    with pytest.raises(ValueError, match="of game"):
        box.add(first.model_copy(update={"game_id": "other"}))
    with pytest.raises(ValueError, match=r"1\.\.1000"):
        box.batch(1001)


FRAMES = [
    "retry: 1000",
    ": ping",
    "event: standings",
    'data: {"change":null,"standings":{"seq":4,"status":"in_progress","players":[]}}',
    "id: 1-0",
    "",
    ": resumed",
    "",
    "event: standings",
    'data: {"change":{"shard":0,"entry_id":"2-0","game_id":"g","seq":5},',
    'data: "compact":true,"standings":{"seq":5,"players":[]}}',
    "",
]


def test_frames_are_parsed_with_their_ids_and_multi_line_data() -> None:
    first, second = parse_frames(FRAMES)
    assert (first.id, first.seq, first.compact, first.change) == ("1-0", 4, False, None)
    # no `id:` in the second frame: the last event id stays (WHATWG HTML §9.2.6)
    assert (second.id, second.seq, second.compact) == ("1-0", 5, True)
    assert second.change == {"shard": 0, "entry_id": "2-0", "game_id": "g", "seq": 5}


class Dropping(httpx.SyncByteStream):
    """A stream that sends `chunks` and then loses the connection."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        raise httpx.ReadError("connection dropped")


def test_follow_resumes_with_last_event_id_after_a_dropped_connection() -> None:
    asked: list[str | None] = []
    one = b'event: standings\ndata: {"change":null,"standings":{"seq":4}}\nid: 7-0\n\n'
    two = (
        b'event: standings\ndata: {"change":null,"compact":true,"standings":{"seq":9}}\nid: 8-1\n\n'
    )

    def service(request: httpx.Request) -> httpx.Response:
        asked.append(request.headers.get("last-event-id"))
        chunks = [one] if len(asked) == 1 else [two]
        return httpx.Response(
            200, stream=Dropping(chunks), headers={"content-type": "text/event-stream"}
        )

    waits: list[float] = []
    with Client("http://t", transport=httpx.MockTransport(service), sleep=waits.append) as c:
        frames = c.follow("g")
        assert next(frames).seq == 4
        assert next(frames).seq == 9
        frames.close()
    assert asked == [None, "7-0"]
    assert waits == [0.2]


def test_follow_raises_the_404_problem_of_a_game_without_events() -> None:
    body = {
        "type": "urn:scoreledger:rule:game_not_found",
        "title": "Not Found",
        "status": 404,
        "rule": "game_not_found",
    }
    service = httpx.MockTransport(lambda request: httpx.Response(404, json=body))
    with Client("http://t", transport=service) as c, pytest.raises(ProblemError) as caught:
        next(c.follow("nope"))
    assert (caught.value.status, caught.value.rule) == (404, "game_not_found")


def test_the_client_imports_only_contracts_httpx_and_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"__future__", "contracts", "httpx"}
    found = []
    for path in sorted((ROOT / "contracts" / "client").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [f"{path.name}: {n}" for n in names if n.split(".")[0] not in allowed]
    assert found == []
