"""The committed AsyncAPI document of the inbox matches what FastStream generates now."""

from __future__ import annotations

from pathlib import Path

import yaml

from services.ingest.asyncapi import generate

COMMITTED = Path(__file__).resolve().parents[2] / "contracts" / "asyncapi.yaml"


def test_committed_asyncapi_has_not_drifted() -> None:
    assert COMMITTED.read_text() == generate(), (
        "run: python -m services.ingest.asyncapi > contracts/asyncapi.yaml"
    )


def test_asyncapi_documents_the_inbox_with_a_redis_cli_example() -> None:
    doc = yaml.safe_load(generate())
    channel = doc["channels"]["inbox"]
    assert channel["address"] == "sl:inbox"
    assert channel["x-redis"]["method"] == "xreadgroup"  # AsyncAPI keeps Redis bindings empty
    assert "redis-cli XADD sl:inbox" in channel["description"]
