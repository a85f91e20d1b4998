"""The stored bytes (the serializer's own) and the 201 body (written in one format;
docs/profiles/serve-round-trips.md) against what they were: for events made of any text
(non-ASCII, escapes, control characters, lone surrogates), any seq, and a `recorded_at`
absent, null or given, `stamped_json` stores the UTF-8 bytes of what the earlier `stamped_json`
returned (its str, which redis-py encodes as UTF-8); the 201 body of any ids
and positions is what `JSONResponse(result.to_dict())` renders.
Source: docs/profiles/hot-path-profiles.md; docs/decisions/0012-hot-reads-and-off-loop-replays.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone

from fastapi.responses import JSONResponse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from services.adapters.redis.eventlog import stamped_json
from services.doors.ingest.http import appended_json
from services.ports.eventlog import AppendedEvent, AppendResult
from tests.example_lines import EXAMPLE_LINES

LINES = EXAMPLE_LINES
_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def _main_stamped_json(events: Sequence[Envelope], now: datetime) -> list[str]:
    """The earlier `stamped_json` (a str, which redis-py encoded as UTF-8), verbatim: the reference."""
    unstamped = '"recorded_at":null'
    stamp = '"recorded_at":' + _DATETIME.dump_json(now).decode()
    out = []
    for event in events:
        text = dump_event_json(event) if event.recorded_at is None else ""
        at = text.find(unstamped)
        if at >= 0:
            out.append(text[:at] + stamp + text[at + len(unstamped) :])
        else:
            out.append(dump_event_json(event.with_recorded_at(now)))
    return out


def _outcome(call: object) -> tuple[str, object]:
    try:
        return "ok", call()  # type: ignore[operator]
    except Exception as error:  # both must fail alike
        return "error", type(error).__name__


_text = st.text(min_size=1, max_size=40)
_when = st.datetimes(
    min_value=datetime(1970, 1, 2),  # noqa: DTZ001 (hypothesis bounds are naive)
    max_value=datetime(9998, 12, 31),  # noqa: DTZ001
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-7, minutes=-30))]),
)


@st.composite
def _events(draw: st.DrawFn) -> Envelope:
    wire = json.loads(draw(st.sampled_from(LINES)))
    wire["actor"] = draw(_text)
    wire["seq"] = draw(st.integers(min_value=1, max_value=2**63))
    stamp = draw(st.sampled_from(["absent", "null", "given"]))
    if stamp == "absent":
        del wire["recorded_at"]
    elif stamp == "given":
        wire["recorded_at"] = draw(_when).isoformat()
    players = wire["payload"].get("players")
    if players and isinstance(players[0], dict) and "name" in players[0]:
        players[0]["name"] = draw(_text)
    try:
        raw = json.dumps(wire, ensure_ascii=draw(st.booleans()))
        event = parse_event_json(raw)
    except Exception:
        assume(False)
        raise
    return event


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(_events(), min_size=1, max_size=4), now=_when)
def test_stored_bytes_are_mains(events: list[Envelope], now: datetime) -> None:
    got = _outcome(lambda: stamped_json(events, now))
    want = _outcome(lambda: [t.encode() for t in _main_stamped_json(events, now)])
    assert got == want


_ids = st.one_of(st.uuids().map(str), st.text(max_size=12))


@settings(max_examples=300, deadline=None)
@given(
    positions=st.lists(
        st.tuples(_ids, st.integers(min_value=0, max_value=2**64), st.booleans()),
        min_size=1,
        max_size=6,
    ),
    version=st.integers(min_value=0, max_value=2**64),
    token=st.one_of(st.none(), st.text(max_size=50)),
)
def test_the_201_body_is_what_json_response_renders(
    positions: list[tuple[str, int, bool]], version: int, token: str | None
) -> None:
    result = AppendResult(
        tuple(AppendedEvent(i, seq, None if dup else "1-0", dup) for i, seq, dup in positions),
        version,
    )

    def rendered() -> bytes:
        out = result.to_dict()
        if token is not None:
            out["write_token"] = token
        return bytes(JSONResponse(out, status_code=201).body)

    assert _outcome(lambda: appended_json(result, token)) == _outcome(rendered)
