"""Upcasting: old payload versions are rewritten to the current shape on read.

Stored events are never changed. A reader that meets `schema_version` n < current applies the
explicit chain `UPCASTERS[(type, n)]`, `UPCASTERS[(type, n + 1)]`, ... on the raw dict and then
validates. Source: docs/decisions/0008-upcast-on-read.md (as eventsourcing's `upcast_v1_v2`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

RawEvent = dict[str, Any]
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def score_corrected_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    """`game.score_corrected` v1 -> v2: `points` became `amount`; `category` and `referee` added.

    v1 events carried the referee only in the envelope's `actor`; v2 names the referee in the
    payload, so v1's missing referee becomes `"unknown (v1 event)"` rather than a guess.
    """
    upgraded = {k: v for k, v in payload.items() if k != "points"}
    upgraded["amount"] = payload["points"]
    upgraded.setdefault("category", "correction")
    upgraded.setdefault("referee", "unknown (v1 event)")
    return upgraded


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("game.score_corrected", 1): score_corrected_v1_to_v2,
}
"""(wire type, from version) -> function turning that version's payload into the next one's."""


def upcast(raw: RawEvent, current_version: int) -> RawEvent:
    """Return `raw` with its payload upcast to `current_version`.

    Raises:
        ValueError: no upcaster is registered for a step of the chain, or the event claims a
            version newer than this code knows.
    """
    version = int(raw.get("schema_version", current_version))
    if version > current_version:
        raise ValueError(
            f"schema_version: {raw.get('type')} v{version} is newer than this reader (v{current_version})"
        )
    payload = raw.get("payload")
    while version < current_version:
        step = UPCASTERS.get((str(raw.get("type")), version))
        if step is None:
            raise ValueError(f"schema_version: no upcaster for {raw.get('type')} v{version}")
        payload = step(dict(payload or {}))
        version += 1
    return {**raw, "payload": payload, "schema_version": version}
