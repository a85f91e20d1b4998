"""`eventlog.stamped_json` writes exactly the UTF-8 bytes of what
`dump_event_json(event.with_recorded_at(now))` writes, for unstamped events (whatever their
text holds, non-ASCII too) and for events sent stamped.
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (ingest profile: the model copy per stored event)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from contracts.events import dump_event_json, parse_event_json
from services.adapters.redis.eventlog import stamped_json
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
