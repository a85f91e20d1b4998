"""The Redis append's ARGV (`RedisEventLog._call`) and its answer (`_result`) against the
earlier per-event code, verbatim: for events of any text (non-ASCII, `\\u` escapes), any seq,
names or none, a live projection or none, and replies with duplicates or none, the ARGV are
the same values and the `AppendResult` the same positions, version and `text`.
Source: docs/decisions/0002-one-atomic-append.md (the call); docs/profiles/hot-path-profiles.md."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from services.adapters.redis.eventlog import RedisEventLog, _event_id, _result, stamped_json
from services.adapters.redis.keynames import KeyNames
from services.adapters.redis.keys import Keys
from services.ports.eventlog import AppendedEvent, AppendRequest, LiveProjection
from tests.example_lines import EXAMPLE_LINES

LINES = EXAMPLE_LINES
NOW = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)


def _log() -> RedisEventLog:
    log = object.__new__(RedisEventLog)  # `_call` reads only the keys and kept names: no client
    log.keys = Keys(4)
    log._keys = KeyNames()
    return log


def _earlier_events_args(events: list[Envelope]) -> list[str | int | bytes]:
    """The events' ARGV as the earlier `_call` made them, one event at a time."""
    args: list[str | int | bytes] = []
    for event, data in zip(events, stamped_json(events, NOW), strict=True):
        args += [str(event.event_id), event.seq, event.type, data]
    return args


def _earlier_result(args: list[Any], out: list[Any]) -> tuple[Any, ...]:
    """(positions, version, text) as the earlier `_result` and `_lines_text` made them."""
    first = 5 + 2 * int(args[4])
    ids = args[first : first + 4 * ((len(out) - 1) // 3) : 4]
    replies = zip(ids, out[1::3], out[2::3], out[3::3], strict=True)
    positions = tuple(
        (str(event_id), int(seq), feed_id.decode() or None, bool(duplicate))
        for event_id, seq, feed_id, duplicate in replies
    )
    total: int | None = 0
    for data in args[first + 3 : first + 4 * len(positions) : 4]:
        if not isinstance(data, bytes) or not data.isascii() or b"\\u" in data:
            total = None
            break
        total += len(data)  # type: ignore[operator]
    return positions, int(out[0]), total


_text = st.text(min_size=1, max_size=30)


@st.composite
def _batch(draw: st.DrawFn) -> list[Envelope]:
    out = []
    for seq in range(1, draw(st.integers(min_value=1, max_value=5)) + 1):
        wire = json.loads(draw(st.sampled_from(LINES)))
        wire["game_id"], wire["seq"] = "g-1", seq
        wire["actor"] = draw(st.one_of(st.just("table-1"), _text))
        wire["recorded_at"] = draw(st.sampled_from([None, "2020-01-01T00:00:00Z"]))
        try:
            out.append(parse_event_json(json.dumps(wire, ensure_ascii=draw(st.booleans()))))
        except Exception:
            assume(False)
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    events=_batch(),
    names=st.lists(st.tuples(_text, _text), max_size=2),
    live=st.booleans(),
    dups=st.data(),
)
def test_call_and_result_are_the_earlier_ones(
    events: list[Envelope], names: list[tuple[str, str]], live: bool, dups: st.DataObject
) -> None:
    projection = LiveProjection(len(events), "in_progress", "trickerion", "{}", b"{}", "t", 9)
    request = AppendRequest("g-1", events, None, None, projection if live else None, tuple(names))
    _, args = _log()._call(request, NOW)
    first = 5 + 2 * len(names)
    assert args[first : first + 4 * len(events)] == _earlier_events_args(events)
    flags = dups.draw(st.lists(st.booleans(), min_size=len(events), max_size=len(events)))
    out: list[Any] = [len(events)]
    for seq, dup in enumerate(flags, 1):
        out += [seq, b"" if dup else b"1700000000000-%d" % seq, int(dup)]
    result = _result(args, out)
    assert (result.events, result.version, result.text) == _earlier_result(args, out)
    assert all(type(e) is AppendedEvent for e in result.events)
    assert [type(e.duplicate) for e in result.events] == [bool] * len(events)


def test_the_event_id_is_the_uuids_text_when_the_line_does_not_start_with_it() -> None:
    event = parse_event_json(LINES[0])
    assert _event_id(event, b'{"game_id":"x"}') == str(event.event_id)
    assert _event_id(event, stamped_json([event], NOW)[0]) == str(event.event_id)


def test_a_line_that_is_not_bytes_leaves_the_text_unknown() -> None:
    events = [parse_event_json(LINES[1])]
    _, args = _log()._call(AppendRequest(events[0].game_id, events), NOW)
    args[5 + 3] = args[5 + 3].decode()  # type: ignore[union-attr]
    assert _result(args, [1, 1, b"1-1", 0]).text is None
