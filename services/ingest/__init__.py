"""Ingest: two doors, one write path (`services.usecases.record.Record`).

`http.ingest_router(record)`: `POST /games/{game_id}/events`; `inbox.Inbox` and
`inbox.build_inbox_app`: the Redis inbox stream (entry format in `inbox_entry`, the group's
pending entries and the reclaimer in `inbox_pel`, Redis fault retries in `transient`). Both are
wired by `services.bootstrap`.
"""
