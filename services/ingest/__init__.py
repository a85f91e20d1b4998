"""Ingest: two doors (HTTP `POST /games/{game_id}/events`, the Redis inbox stream), one
domain-checked append path.

Public: `router` (FastAPI; needs `ingest_lifespan(settings)` for `app.state.ingest_store`),
`ingest_lifespan`, `create_ingest_app`, `inbox_lifespan`, `build_inbox_app`, `Inbox`.
"""

from services.ingest.http import create_ingest_app, ingest_lifespan, router
from services.ingest.inbox import Inbox, build_inbox_app, inbox_lifespan

__all__ = [
    "Inbox",
    "build_inbox_app",
    "create_ingest_app",
    "inbox_lifespan",
    "ingest_lifespan",
    "router",
]
