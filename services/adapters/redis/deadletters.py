"""The dead-letter stream: every message that could not be appended or applied, kept whole.

Entry fields: `raw` (the body as received), `reason` (JSON: a pydantic error list or a
`RuleViolation.to_dict()`), `source` (`http`, `inbox`, `projector`), `time` (ISO 8601 UTC),
plus optional context (`game`, `seq`, `feed_id`, `inbox_id`). Never trimmed by us.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis

from services.keys import Keys
from services.metrics import EVENTS_DEAD_LETTERED


async def dead_letter(
    client: aioredis.Redis,
    keys: Keys,
    raw: bytes | str,
    reason: Any,
    source: str,
    **context: str | int,
) -> str:
    """XADD one dead letter; returns its entry id. `reason` is JSON-dumped (str() for odd types)."""
    fields: dict[str, bytes | str | int] = {
        "raw": raw,
        "reason": json.dumps(reason, default=str, ensure_ascii=False),
        "source": source,
        "time": datetime.now(UTC).isoformat(),
        **context,
    }
    entry_id = await client.xadd(keys.dead_letter, fields)  # type: ignore[arg-type]
    EVENTS_DEAD_LETTERED.labels(source=source).inc()
    return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
