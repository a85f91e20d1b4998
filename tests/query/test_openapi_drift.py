"""The committed contracts/openapi.json equals the one generated from the app (drift test)."""

from __future__ import annotations

import json

from services.contracts_gen import openapi_json as generate
from services.doors.query.openapi import COMMITTED


def test_committed_openapi_matches_the_app() -> None:
    assert COMMITTED.exists(), "contracts/openapi.json is missing: run `make schemas`"
    assert COMMITTED.read_text(encoding="utf-8") == generate(), (
        "contracts/openapi.json is stale: run `make schemas` and commit it"
    )


def test_openapi_covers_query_ingest_and_health() -> None:
    paths = json.loads(generate())["paths"]
    assert {
        "/games",
        "/games/{game_id}/standings",
        "/games/{game_id}/events",
        "/games/{game_id}/players/{player_id}/ledger",
        "/healthz",
        "/readyz",
    } <= set(paths)
    assert "post" in paths["/games/{game_id}/events"]  # the ingest route
    standings = paths["/games/{game_id}/standings"]["get"]
    assert {"200", "404", "503", "422"} <= set(standings["responses"])
