"""Two threads building native validators at once (a game registered while another thread
builds the batch validator on first use): each gets a native validator (the envelope's checks
not run in Python) and the published models read as complete afterwards, as before either
build; while the models read as incomplete, their own validators and a validator built from
them meanwhile still run the envelope's checks.
Source: contracts/native.py; docs/profiles/decode-profiles.md.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError
from pydantic_core import SchemaValidator

import contracts.events
import contracts.native
from contracts.native import native_validator
from tests.envelope_calls import envelope_calls

LINE = next(
    line
    for path in sorted((Path(__file__).resolve().parents[2] / "contracts/examples").glob("*.jsonl"))
    for line in path.read_text().splitlines()
    if line.strip() and "game_started" not in line
)


def _envelope_checks(validator: SchemaValidator) -> list[str]:
    """The functions of contracts/envelope.py run while `validator` decodes `LINE`."""
    return envelope_calls(validator.validate_json, LINE)[0]


def test_two_builds_at_once_are_both_native_and_leave_the_models_complete(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    models = list(contracts.events.ENVELOPE_BY_TYPE.values())
    before = [m.__dict__.get("__pydantic_complete__") for m in models]
    schema = contracts.events.EVENT_ADAPTER.core_schema
    inside = threading.Barrier(2, timeout=30)
    first_done = threading.Event()
    built: dict[str, SchemaValidator] = {}

    def build(native: Any) -> SchemaValidator:
        inside.wait()  # both threads have marked the models
        if threading.current_thread().name == "second":
            first_done.wait(timeout=30)  # the first build has ended
        return SchemaValidator(native)

    def run(name: str) -> None:
        built[name] = native_validator(schema)
        if name == "first":
            first_done.set()

    monkeypatch.setattr(contracts.native, "SchemaValidator", build)
    threads = [threading.Thread(target=run, args=(n,), name=n) for n in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [m.__dict__.get("__pydantic_complete__") for m in models] == before
    assert _envelope_checks(built["first"]) == []
    assert _envelope_checks(built["second"]) == []


def test_the_published_models_check_as_before_while_a_native_validator_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = json.loads(LINE)
    model = contracts.events.ENVELOPE_BY_TYPE[raw["type"]]
    bad = json.dumps({**raw, "schema_version": True})
    seen: list[str] = []

    def build(native: Any) -> SchemaValidator:
        # another thread's work while the models read as incomplete
        assert model.__dict__["__pydantic_complete__"] is False
        for validate in (model.model_validate_json, TypeAdapter(model).validate_json):
            with pytest.raises(ValidationError, match="must be a JSON integer, got bool") as e:
                validate(bad)
            seen.append(str(e.value.errors()[0]["loc"]))
        return SchemaValidator(native)

    monkeypatch.setattr(contracts.native, "SchemaValidator", build)
    native_validator(contracts.events.EVENT_ADAPTER.core_schema)
    assert seen == ["('schema_version',)", "('schema_version',)"]
    assert model.__dict__["__pydantic_complete__"] is True
