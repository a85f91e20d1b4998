"""Round trips of one HTTP write on Redis, counted at the socket (every command or pipeline
sent is one `send_packed_command`), and the player names kept by the append script itself
(docs/profiles/write-round-trips.md; docs/decisions/0014-names-outside-the-log.md).

A write is: the credential lookup (before the body is read:
docs/decisions/0009-one-authorization-on-every-write.md), then the append with its live
projection and, on a creation, the start event's names. A creation is planned on the lookup's
empty game; only when the append refuses it (another creation landed first) is the stored
log read (an exact retry is answered as duplicates:
tests/adversarial/test_ingest_concurrent_retry.py).
"""

from __future__ import annotations

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.adapters.redis.names import RedisPlayerNames
from services.bootstrap import redis_ports, use_cases
from services.platform.settings import ServiceSettings
from services.ports.errors import VersionConflict
from services.ports.eventlog import AppendRequest
from services.usecases.authorize import WriteProof
from services.usecases.names import NamedEventLog
from tests.pipeline.factory import body_source, game_log, started, wire_body
from tests.pipeline.sends import on_every_send

pytestmark = pytest.mark.redis

SHARDS = 4
TOKEN = "a-chosen-token-of-at-least-32-chars-xyz"
SETUP = {"HELLO", "CLIENT", "AUTH", "SELECT", "READONLY"}
"""A new connection's handshake (on a cluster, the first command to another node opens one)."""


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first word of every round trip sent by any connection of this process."""
    out: list[str] = []

    def note(raw: bytes) -> None:
        name = raw.split(b"\r\n")[2].decode()  # *N, $len, then the command's name
        if name not in SETUP:
            out.append(name)

    on_every_send(monkeypatch, note)
    return out


async def test_a_creation_and_a_next_batch_are_two_round_trips_each(
    redis_client: RedisClient, sent: list[str]
) -> None:
    ports = redis_ports(redis_client, Keys(SHARDS))
    record = use_cases(ports, ServiceSettings(shards=SHARDS)).record
    warm = game_log("warm", 4)  # loads the scripts (NOSCRIPT, SCRIPT LOAD) before counting
    await record.record("warm", WriteProof(TOKEN), body_source(wire_body(*warm)))
    log = game_log("g1", 80)

    sent.clear()
    await record.record("g1", WriteProof(TOKEN), body_source(wire_body(*log[:40])))
    # the lookup, the append (no version read again, names kept inside it: no HSETNX)
    assert sent == ["EVALSHA", "EVALSHA"]

    sent.clear()
    await record.record("g1", WriteProof(TOKEN), body_source(wire_body(*log[40:])))
    assert sent == ["EVALSHA", "EVALSHA"]  # the lookup, the append

    names = RedisPlayerNames(redis_client, Keys(SHARDS))
    assert await names.names("g1") == {"ann": "Ann", "bob": "Bob", "cat": "Cat"}


async def test_a_creation_sent_twice_at_once_is_answered_as_duplicates(
    redis_client: RedisClient,
) -> None:
    """The second creation is planned on its lookup's empty game and refused by the append
    (the first stored another token digest): decided again on the stored log, its events are
    duplicates, as tests/adversarial/test_ingest_concurrent_retry.py has it in memory."""
    keys = Keys(SHARDS)
    first = use_cases(redis_ports(redis_client, keys), ServiceSettings(shards=SHARDS)).record
    second = use_cases(redis_ports(redis_client, keys), ServiceSettings(shards=SHARDS)).record
    raw = wire_body(*game_log("g1", 3))

    async def racing_body() -> bytes:
        created = await first.record("g1", WriteProof(), body_source(raw))
        assert created.write_token is not None
        return raw

    again = await second.record("g1", WriteProof(), racing_body)
    assert [(e.seq, e.duplicate) for e in again.result.events] == [(1, True), (2, True), (3, True)]
    assert (again.result.version, again.write_token) == (3, None)


def _named(client: RedisClient) -> tuple[NamedEventLog, RedisPlayerNames]:
    keys = Keys(SHARDS)
    names = RedisPlayerNames(client, keys)
    return NamedEventLog(RedisEventLog(client, keys), names), names


async def test_a_refused_creation_keeps_no_name(redis_client: RedisClient) -> None:
    """Before, the names were kept (HSETNX) before the append was tried: a creation refused
    by the append's own check (here its version: the game exists) left its names behind."""
    log, names = _named(redis_client)
    await log.append("g1", game_log("g1", 2, players=("ann", "bob")))
    other = started("g1", ("ann", "bob", "zed"))  # another start, seq 1 again
    with pytest.raises(VersionConflict):
        await log.append_one(AppendRequest("g1", [other]))
    assert await names.names("g1") == {"ann": "Ann", "bob": "Bob"}


async def test_the_first_writer_of_a_name_wins_and_a_forgotten_one_stays_forgotten(
    redis_client: RedisClient,
) -> None:
    log, names = _named(redis_client)
    key = Keys(SHARDS).names("g1")
    await redis_client.hset(key, mapping={"ann": "", "bob": "Robert"})  # forgotten, earlier
    events = game_log("g1", 3)
    await log.append("g1", events)
    assert await names.names("g1") == {"ann": "", "bob": "Robert", "cat": "Cat"}
    await redis_client.hset(key, "cat", "")  # forgotten after the creation
    retried = await log.append("g1", events)  # a retried creation: all duplicates
    assert [e.duplicate for e in retried.events] == [True, True, True]
    assert await names.names("g1") == {"ann": "", "bob": "Robert", "cat": ""}


async def test_the_names_go_in_the_append_script_not_before_it(
    redis_client: RedisClient, sent: list[str]
) -> None:
    log, _ = _named(redis_client)
    await log.append("warm", game_log("warm", 1))
    sent.clear()
    await log.append("g1", game_log("g1", 3))
    assert sent == ["EVALSHA"]
