"""An omitted `schema_version` means what the committed table `contracts/omitted_versions.json`
says, forever (docs/versioning.md): it was read as the type's latest version, so a version 2
of a type would have broken every table that omits the field. With the table's entry older
than the current version, an event that omits it is read as that older version and upcast, on
every parse path (one envelope, a batch in one pass, the step-by-step path, stored JSON)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

import contracts.events
import contracts.versions
from contracts.common import ScoreCorrected
from contracts.events import PAYLOAD_BY_TYPE, parse_event, parse_event_json
from services.usecases.parse import parse_body
from services.usecases.refusal import Refusal

ROOT = Path(__file__).resolve().parents[2]
OMITTED_V1 = {
    "event_id": str(uuid.UUID(int=8)),
    "game_id": "g-omit",
    "seq": 4,
    "type": "game.score_corrected",
    "occurred_at": "2026-11-30T10:00:00Z",
    "actor": "referee-desk",
    "payload": {"player_id": "ana", "points": -3, "reason": "Shard miscounted"},
}
"""A `game.score_corrected` in its version-1 shape (`points`) with no `schema_version`."""


def test_every_published_type_has_an_entry_and_none_is_newer_than_the_code() -> None:
    table = contracts.versions.omitted_versions()
    assert set(table) == set(PAYLOAD_BY_TYPE)
    for wire_type, version in table.items():
        assert 1 <= version <= PAYLOAD_BY_TYPE[wire_type].SCHEMA_VERSION, wire_type


def test_the_table_is_what_versioning_md_documents() -> None:
    page = (ROOT / "docs" / "versioning.md").read_text("utf-8")
    for wire_type, version in contracts.versions.omitted_versions().items():
        assert f"| `{wire_type}` | {version} |" in page, wire_type


def test_today_an_omitted_version_reads_as_the_tables() -> None:
    body = {**OMITTED_V1, "payload": {**OMITTED_V1["payload"], "amount": -3, "referee": "r"}}
    del body["payload"]["points"]
    event = parse_event_json(json.dumps(body))
    assert event.schema_version == contracts.versions.omitted_versions()[body["type"]] == 2


@pytest.fixture
def score_corrected_omitted_means_v1(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The table as it will be once `game.score_corrected` is at v2 and tables that omit the
    field meant v1: its envelope rebuilt, then restored."""
    table = {**contracts.versions.omitted_versions(), "game.score_corrected": 1}
    monkeypatch.setattr(contracts.versions, "omitted_versions", lambda: table)
    monkeypatch.setitem(
        contracts.events.ENVELOPE_BY_TYPE,
        "game.score_corrected",
        contracts.events._envelope_for(ScoreCorrected),
    )
    contracts.events._build()
    yield
    monkeypatch.undo()
    contracts.events._build()


@pytest.mark.usefixtures("score_corrected_omitted_means_v1")
def test_an_omitted_version_is_read_as_the_tables_older_one_on_every_path() -> None:
    text = json.dumps(OMITTED_V1).encode()
    batch = json.dumps([OMITTED_V1]).encode()
    events = [
        parse_event(dict(OMITTED_V1)),
        parse_event_json(text),
        *parse_body(text, "body"),
        *parse_body(batch, "body"),
    ]
    for event in events:
        assert event.schema_version == 2  # upcast from the table's v1
        assert isinstance(event.payload, ScoreCorrected)
        assert event.payload.amount == -3
        assert event.payload.referee == "unknown (v1 event)"


@pytest.mark.usefixtures("score_corrected_omitted_means_v1")
def test_a_current_shape_without_its_version_is_read_as_the_older_one_and_refused() -> None:
    body = {**OMITTED_V1, "payload": {"player_id": "ana", "amount": -3, "reason": "x"}}
    with pytest.raises(ValidationError):
        parse_event(body)
    with pytest.raises(Refusal):
        parse_body(json.dumps(body).encode(), "body")
    named = {**body, "schema_version": 2, "payload": {**body["payload"], "referee": "r"}}
    assert parse_event(named).payload.amount == -3  # the new version, named, is accepted
