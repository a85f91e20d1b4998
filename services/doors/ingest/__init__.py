"""Ingest: two doors, one write path (`services.usecases.record.Record`).

`http.ingest_router(record)`: `POST /games/{game_id}/events`; `inbox.Inbox` (one stream's
settling) and `inbox_app.build_inbox_app` (a subscriber per stream: the shared `sl:inbox` and
one per integration): the Redis inbox streams (entry format in `inbox_entry`, the group's
pending entries and the reclaimer in `inbox_pel`, Redis fault retries in `transient`). Both are
wired by `services.bootstrap`.
"""
