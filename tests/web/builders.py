"""Test logs: the committed Penumbra example game and referee events appended to a log."""

from __future__ import annotations

import uuid
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

from contracts.common import EventVoided, ScoreCorrected
from contracts.envelope import Envelope
from contracts.events import parse_event, parse_event_json

EXAMPLES = Path(__file__).parents[2] / "contracts" / "examples"


@cache
def example(name: str = "penumbra-3p") -> tuple[Envelope, ...]:
    """The events of `contracts/examples/<name>.jsonl`."""
    text = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8")
    return tuple(parse_event_json(line) for line in text.splitlines())


def referee(
    log: list[Envelope] | tuple[Envelope, ...],
    payload: dict[str, Any],
    *,
    causation: Envelope | None = None,
) -> Envelope:
    """The next event of `log`: a void (payload has `voided_event_id`) or a correction."""
    last = log[-1]
    kind = EventVoided if "voided_event_id" in payload else ScoreCorrected
    return parse_event(
        {
            "event_id": str(uuid.uuid4()),
            "game_id": last.game_id,
            "seq": last.seq + 1,
            "type": kind.TYPE,
            "schema_version": kind.SCHEMA_VERSION,
            "occurred_at": (last.occurred_at + timedelta(minutes=1)).isoformat(),
            "actor": "ref-test",
            "causation_id": str(causation.event_id) if causation else None,
            "payload": {"reason": "test", "referee": "ref-test", **payload},
        }
    )
