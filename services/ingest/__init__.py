"""Ingest: two doors, one write path (`services.usecases.record.Record`).

`http.ingest_router(record)`: `POST /games/{game_id}/events`; `inbox.Inbox` and
`inbox.build_inbox_app`: the Redis inbox stream. Both are wired by `services.bootstrap`.
"""
