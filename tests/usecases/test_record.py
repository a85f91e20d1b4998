"""The record use case on in-memory adapters: authorize first, parse, check, append; one
`Refusal` for every way a write is refused; nothing of a refused write stored."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from services.bootstrap import Ports, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.authorize import WriteProof
from services.usecases.record import Entry, Record, Recorded
from services.usecases.refusal import MESSAGE_MAX, Refusal
from tests.pipeline.factory import body_source, corrected, game_log, started, wire_body

TOKEN = "a-chosen-token-of-at-least-32-chars-xyz"


@pytest.fixture
def ports() -> Ports:
    return memory_ports(4)


@pytest.fixture
def record(ports: Ports) -> Record:
    return use_cases(ports, ServiceSettings(shards=4)).record


async def refused(record: Record, game_id: str, proof: WriteProof, raw: bytes) -> Refusal:
    with pytest.raises(Refusal) as caught:
        await record.record(game_id, proof, body_source(raw))
    return caught.value


async def test_a_creation_gets_a_generated_token_and_the_next_write_needs_it(
    record: Record, ports: Ports
) -> None:
    log = game_log("g1", 3)
    created = await record.record("g1", WriteProof(), body_source(wire_body(log[0])))
    assert created.write_token is not None
    assert len(created.write_token) == 43
    missing = await refused(record, "g1", WriteProof(), wire_body(log[1]))
    assert (missing.kind, missing.rule) == ("unauthorized", "auth.token_required")
    wrong = await refused(record, "g1", WriteProof("w" * 43), wire_body(log[1]))
    assert (wrong.kind, wrong.rule, wrong.field) == (
        "forbidden",
        "auth.token_rejected",
        "authorization",
    )
    ok = await record.record(
        "g1", WriteProof(created.write_token), body_source(wire_body(*log[1:]))
    )
    assert (ok.result.version, ok.write_token) == (3, None)


async def test_an_unauthorized_write_is_refused_before_its_body_is_read(record: Record) -> None:
    await record.record("g1", WriteProof(TOKEN), body_source(wire_body(started("g1"))))

    async def must_not_read() -> bytes:
        raise AssertionError("the body was read before the token was checked")

    with pytest.raises(Refusal) as caught:
        await record.record("g1", WriteProof(), must_not_read)
    assert caught.value.rule == "auth.token_required"


async def test_refusals_name_the_rule_and_field(record: Record, ports: Ports) -> None:
    await record.record("g1", WriteProof(TOKEN), body_source(wire_body(*game_log("g1", 2))))
    proof = WriteProof(TOKEN)
    bad_json = await refused(record, "g1", proof, b"{not json" + b"x" * 5000)
    assert (bad_json.kind, bad_json.rule, bad_json.field) == ("invalid", "body.json", "body")
    assert len(bad_json.message) <= MESSAGE_MAX  # an echo of the input stays short
    empty = await refused(record, "g1", proof, b"[]")
    assert (empty.rule, empty.field) == ("body.shape", "body")
    field = await refused(
        record,
        "g1",
        proof,
        json.dumps({**corrected("g1", 3, "ann", 1).to_wire(), "seq": 0}).encode(),
    )
    assert (field.kind, field.rule, field.field) == ("invalid", "schema.field", "seq")
    rule = await refused(record, "g1", proof, wire_body(corrected("g1", 3, "zoe", 1)))
    assert (rule.kind, rule.rule) == ("rule", "correction.unknown_player")
    conflict = await refused(record, "g1", proof, wire_body(corrected("g1", 7, "ann", 1)))
    assert (conflict.kind, conflict.field) == ("conflict", "seq")
    assert dict(conflict.extras) == {"expected": 6, "actual": 2, "version": 2, "index": 0}
    assert await ports.log.version("g1") == 2


async def test_a_creator_key_when_the_deployment_sets_one(ports: Ports) -> None:
    settings = ServiceSettings(shards=4, creator_key=SecretStr("integration-key"))
    record = use_cases(ports, settings).record
    none = await refused(record, "g1", WriteProof(TOKEN), wire_body(started("g1")))
    wrong = await refused(record, "g1", WriteProof(TOKEN, "other"), wire_body(started("g1")))
    assert (none.rule, wrong.rule) == ("auth.creator_key_required", "auth.creator_key_rejected")
    ok = await record.record(
        "g1", WriteProof(TOKEN, "integration-key"), body_source(wire_body(started("g1")))
    )
    assert ok.write_token == TOKEN
    # Later writes need the game's token only.
    more = await record.record(
        "g1", WriteProof(TOKEN), body_source(wire_body(corrected("g1", 2, "ann", 1)))
    )
    assert more.result.version == 2


async def test_record_entries_one_outcome_per_entry_in_order(record: Record) -> None:
    log = game_log("g1", 3)
    token = TOKEN.encode().decode()
    entries = [
        Entry(WriteProof(token), wire_body(log[0])),
        Entry(WriteProof(token), None),  # no data field
        Entry(WriteProof(token), b"\xff\xfe"),  # not JSON
        Entry(WriteProof(token), wire_body(log[1], started("g2"))),  # two games in one entry
        Entry(WriteProof(token), wire_body(log[1])),
        Entry(WriteProof(token), json.dumps(log[2].to_wire()).encode()),
    ]
    outcomes = await record.record_entries(entries)
    kinds = [o.result.version if isinstance(o, Recorded) else o.rule for o in outcomes]
    assert kinds == [1, "body.json", "body.json", "schema.field", 2, 3]
    assert isinstance(outcomes[3], Refusal)
    assert outcomes[3].field == "game_id"
