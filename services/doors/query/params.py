"""Query parameters the side streams' read doors share (tournaments and leagues), so the
published OpenAPI refers to one declaration (`openapi_share.share_replay_parameter`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

AtSeq = Annotated[
    int | None, Query(ge=1, le=10_000_000, description="replay: after the first N events")
]
"""`?at_seq=N`: a tournament's or league's state after its first N events."""
