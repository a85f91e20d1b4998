"""The committed AsyncAPI document of the inbox matches what FastStream generates now."""

from __future__ import annotations

from pathlib import Path

import yaml

from services.contracts_gen import asyncapi_yaml as generate

COMMITTED = Path(__file__).resolve().parents[2] / "contracts" / "asyncapi.yaml"


def test_committed_asyncapi_has_not_drifted() -> None:
    assert COMMITTED.read_text() == generate(), "run: make schemas"


def test_asyncapi_documents_the_inbox_with_a_redis_cli_example() -> None:
    doc = yaml.safe_load(generate())
    channel = doc["channels"]["inbox"]
    assert channel["address"] == "sl:inbox"
    assert channel["x-redis"]["method"] == "xreadgroup"  # AsyncAPI keeps Redis bindings empty
    assert "redis-cli XADD sl:inbox" in channel["description"]


def test_asyncapi_documents_every_integrations_own_stream() -> None:
    # Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): (hostile integrations): one channel for all of sl:inbox:<name>, read by the group
    doc = yaml.safe_load(generate())
    channel = doc["channels"]["integration-inbox"]
    assert channel["address"] == "sl:inbox:{integration}"
    assert set(channel["parameters"]) == {"integration"}
    assert channel["x-redis"]["channel"] == "sl:inbox:{integration}"
    assert channel["x-redis"]["groupName"] == "ingest"
    assert "integration-<integration>" in channel["description"]
    assert "table-7" not in yaml.safe_dump(channel["x-redis"])  # no example name left behind
    operation = doc["operations"]["integration-inbox"]
    assert operation["action"] == "receive"
    assert operation["channel"] == {"$ref": "#/channels/integration-inbox"}
    fields = doc["components"]["messages"]["DeadLetter"]["payload"]["properties"]
    assert "inbox" in fields
