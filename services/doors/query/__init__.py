"""The query service: the read side over HTTP (standings, replay, audit, ledger, health, metrics).

Composition root: `services.doors.query.app.create_app(settings)`.
"""
