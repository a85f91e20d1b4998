"""The ingest plans on the version its credential lookup read
(`CheckedAppend.append(..., known_version)`, a72a9fb) when no state is cached.

That version is read before the request's body is read and parsed. Another writer (another
ingest process, or the original attempt of a retry) may store events meanwhile: the plan
then folds the whole stored log (`_load` reads the stream, not up to the version), but an
all-duplicate answer reported the lookup's version, lower than the seqs it returns.
"""

from __future__ import annotations

import pytest

from services.bootstrap import Ports, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.authorize import WriteProof
from services.usecases.record import Record
from tests.pipeline.factory import body_source, game_log, wire_body

TOKEN = "a-chosen-token-of-at-least-32-chars-xyz"


@pytest.fixture
def ports() -> Ports:
    return memory_ports(4)


def ingest(ports: Ports) -> Record:
    """One ingest process on the shared store (its own cache of folded games)."""
    return use_cases(ports, ServiceSettings(shards=4)).record


async def test_a_retry_whose_original_lands_during_its_body_read_reports_the_stored_version(
    ports: Ports,
) -> None:
    first, second = ingest(ports), ingest(ports)
    log = game_log("g1", 6)

    await first.record("g1", WriteProof(TOKEN), body_source(wire_body(*log[:5])))

    async def retry_body() -> bytes:
        # the original attempt of seq 6 is stored while the retry's body is on the wire
        stored = await first.record("g1", WriteProof(TOKEN), body_source(wire_body(log[5])))
        assert stored.result.version == 6
        return wire_body(log[5])

    retried = await second.record("g1", WriteProof(TOKEN), retry_body)
    seqs = [(e.seq, e.duplicate) for e in retried.result.events]
    print(f"retry answered events {seqs}, version {retried.result.version}")
    assert seqs == [(6, True)]
    assert retried.result.version == 6  # the log holds 6 events, and the answer names seq 6


async def test_a_creation_sent_twice_at_once_is_a_duplicate_not_a_rejected_token(
    ports: Ports,
) -> None:
    """Both lookups see no game (no token yet: each generates one); the first lands while the
    second's body is read. Before a72a9fb the second re-read the version and answered its
    events as duplicates, as any exact retry; planned on the lookup's version 0 it went to the
    store as a creation and was refused `auth.token_rejected` (403)."""
    first, second = ingest(ports), ingest(ports)
    raw = wire_body(*game_log("g1", 3))

    async def racing_body() -> bytes:
        created = await first.record("g1", WriteProof(), body_source(raw))
        assert created.write_token is not None
        return raw

    again = await second.record("g1", WriteProof(), racing_body)
    print(f"the second creation: {[(e.seq, e.duplicate) for e in again.result.events]}")
    assert [(e.seq, e.duplicate) for e in again.result.events] == [(1, True), (2, True), (3, True)]
    assert (again.result.version, again.write_token) == (3, None)
