"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): which Redis errors the inbox waits out, and that waiting never dead-letters.

The inbox's record step is made to fail with each kind of transient fault a few times before it
works (ports in memory, so the fault is exactly the one injected): the entry is stored, nothing
is dead-lettered. A non-transient error propagates (the entry stays pending for a reclaimer).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from redis import exceptions as rexc

from services.adapters.memory.inbox import MemoryInboxQueue
from services.adapters.redis.errors import translated
from services.adapters.redis.keys import Keys
from services.bootstrap import Ports, memory_ports, use_cases
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.ports.errors import ReplicasUnconfirmed
from services.usecases.inbox.settle import Inbox
from services.usecases.inbox.transient import is_transient
from services.usecases.record import Entry, Record, Recorded
from services.usecases.refusal import Refusal
from tests.pipeline.factory import started

TOKEN = "transient-test-token-chosen-by-the-table-01"

RAW_FAULTS: list[BaseException] = [
    rexc.ConnectionError("Connection refused"),
    rexc.TimeoutError("Timeout reading from socket"),
    rexc.BusyLoadingError("Redis is loading the dataset in memory"),
    rexc.ResponseError("BUSY Redis is busy running a script"),
    rexc.ResponseError("MISCONF Redis is configured to save RDB snapshots, but it's failing"),
    rexc.ResponseError("NOREPLICAS Not enough good replicas to write."),
    rexc.ResponseError(  # redis-py's pipeline annotation (docs/decisions/0011-faults-are-answered-not-crashed.md)
        "Command # 1 (ZRANGE k 0 -1) of pipeline caused error: ('BUSY Redis is busy',)"
    ),
    rexc.ResponseError("LOADING Redis is loading the dataset in memory"),
    rexc.MovedError("3999 127.0.0.1:7001"),
    rexc.AskError("3999 127.0.0.1:7002"),
    rexc.ClusterDownError("CLUSTERDOWN The cluster is down"),
    rexc.MasterDownError("MASTERDOWN Link with MASTER is down"),
    rexc.TryAgainError("TRYAGAIN Multiple keys request during rehashing of slot"),
    rexc.ClusterError("TTL exhausted."),
    rexc.ReadOnlyError("READONLY You can't write against a read only replica."),
    rexc.OutOfMemoryError("OOM command not allowed when used memory > 'maxmemory'."),
    rexc.MaxConnectionsError("Too many connections"),
    ConnectionResetError(104, "Connection reset by peer"),
    TimeoutError(),
    ReplicasUnconfirmed(1, 0),  # stored, not yet on the replicas: the retry is a duplicate
]
FAULTS = [translated(f) if isinstance(f, rexc.RedisError) else f for f in RAW_FAULTS]
"""As the process's Redis client raises them: also the ports' `StoreUnavailable`."""


class Flaky(Record):
    """The real record use case, failing with `fault` on its first `times` calls."""

    def __init__(self, inner: Record, fault: BaseException, times: int) -> None:
        super().__init__(inner.credentials, inner.checked, inner.authorizer)
        self.fault = fault
        self.left = times
        self.calls = 0

    async def record_entries(self, entries: Sequence[Entry]) -> list[Recorded | Refusal]:
        self.calls += 1
        if self.left > 0:
            self.left -= 1
            raise self.fault
        return await super().record_entries(entries)


def flaky_inbox(flaky: Flaky, ports: Ports) -> Inbox:
    """The inbox door over `flaky` (the record use case failing first), retrying fast."""
    queue = MemoryInboxQueue("sl:inbox", game_of_entry)
    return Inbox(queue, Keys(4), flaky, ports.letters, retry_cap_s=0.01, form=INBOX_FORM)


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: type(f).__name__ + ":" + str(f)[:12])
async def test_a_transient_fault_is_retried_until_redis_answers(fault: BaseException) -> None:
    assert is_transient(fault)
    ports = memory_ports(4)
    flaky = Flaky(use_cases(ports, ServiceSettings(shards=4)).record, fault, times=3)
    inbox = flaky_inbox(flaky, ports)
    data = json.dumps(started("t1").to_wire()).encode()
    await inbox.process([b"1-1"], [{b"data": data, b"token": TOKEN.encode()}])
    letters = len(await ports.letters.read())
    print(
        f"{type(fault).__name__}: calls {flaky.calls}, stored {await ports.log.version('t1')}, "
        f"dead letters {letters}"
    )
    assert (flaky.calls, await ports.log.version("t1"), letters) == (4, 1, 0)


@pytest.mark.parametrize(
    "error",
    [
        translated(rexc.ResponseError("WRONGTYPE Operation against a key holding the wrong kind")),
        translated(rexc.NoPermissionError("NOPERM this user has no permissions to run 'xadd'")),
        ValueError("a bug"),
    ],
)
async def test_other_errors_propagate_and_letter_nothing(error: BaseException) -> None:
    assert not is_transient(error)
    ports = memory_ports(4)
    flaky = Flaky(use_cases(ports, ServiceSettings(shards=4)).record, error, times=1)
    inbox = flaky_inbox(flaky, ports)
    data = json.dumps(started("t2").to_wire()).encode()
    with pytest.raises(type(error)):
        await inbox.process([b"1-1"], [{b"data": data, b"token": TOKEN.encode()}])
    assert (flaky.calls, len(await ports.letters.read())) == (1, 0)
