"""`eventlog.stamped_json` writes exactly the UTF-8 bytes of what
`dump_event_json(event.with_recorded_at(now))` writes, for unstamped events (whatever their
text holds, non-ASCII too), for events sent stamped, and for events whose fields hold objects
keyed `event_id` or `recorded_at` (only the envelope's `recorded_at` is stamped). The ids
`_call` sends (`_event_ids`, read from the lines in C) are each event's own.
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (ingest profile: the model copy per stored event)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import cast

from pydantic import BaseModel, create_model

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from services.adapters.redis.eventlog import _event_ids, stamped_json
from tests.example_lines import EXAMPLE_LINES


def _events() -> list[str]:
    return list(EXAMPLE_LINES)


def test_stamped_json_equals_the_copy_then_dump() -> None:
    events = [parse_event_json(line) for line in _events()]
    hostile = json.loads(_events()[0])
    hostile["actor"] = 'x","recorded_at":null,"y":"'
    hostile["recorded_at"] = None
    stamped = json.loads(_events()[1])
    stamped["recorded_at"] = "2020-01-01T00:00:00Z"
    wide = json.loads(_events()[2])
    wide["actor"] = "Zoë 🎲 \u2028 \\u0041"
    wide["recorded_at"] = None
    events += [parse_event_json(json.dumps(e)) for e in (hostile, stamped, wide)]
    for now in (datetime(2026, 12, 1, 14, 0, tzinfo=UTC), datetime.now(UTC)):
        want = [dump_event_json(e.with_recorded_at(now)).encode() for e in events]
        assert stamped_json(events, now) == want
        assert all(json.loads(w)["recorded_at"] is not None for w in want)
        assert any(not w.isascii() for w in want)


class _Id(BaseModel):
    event_id: str


class _At(BaseModel):
    recorded_at: None = None


def _nested(line: str, **notes: object) -> Envelope:
    """The event of `line` as a model with one more field, `notes` (objects of its own)."""
    event = parse_event_json(line)
    fields: dict[str, object] = {"notes": (list[_Id | _At], ...)}
    noted = create_model("Noted", __base__=type(event), **fields)  # type: ignore[call-overload]
    return cast(Envelope, noted(**dict(event), **notes))


def test_objects_keyed_like_an_envelope_inside_an_event() -> None:
    now = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
    lines = list(EXAMPLE_LINES)[:3]
    plain = [parse_event_json(line) for line in lines]
    for notes in (
        [_At()],  # one more `"recorded_at":null`
        [_Id(event_id="a"), _Id(event_id="b")],  # one more `,{"event_id":"`
        [_At(), _Id(event_id="c")],
    ):
        for at in range(3):
            events = list(plain)
            events[at] = _nested(lines[at], notes=notes)
            want = [dump_event_json(e.with_recorded_at(now)).encode() for e in events]
            assert stamped_json(events, now) == want
            assert list(_event_ids(events, want)) == [str(e.event_id) for e in events]


def test_ids_of_lines_not_starting_with_their_id() -> None:
    events = [parse_event_json(line) for line in list(EXAMPLE_LINES)[:3]]
    for odd in (b"{}", b'{"event_id":"' + b"x" * 40, b" " + dump_event_json(events[1]).encode()):
        lines = [dump_event_json(e).encode() for e in events]
        lines[1] = odd
        assert list(_event_ids(events, lines)) == [str(e.event_id) for e in events]
