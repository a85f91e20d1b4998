"""Helpers of the inbox fault tests (tests/pipeline/test_inbox_*.py): a load of games streamed
into the inbox, the counts that tell whether it all settled, and a replica process.

`python -m tests.pipeline.inbox_support` runs one inbox replica (settings from the
environment, e.g. `SCORELEDGER_REDIS_URL`) until SIGTERM/SIGKILL; it prints `ready` once
consuming.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from redis import exceptions as rexc

from contracts.envelope import Envelope
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.ports.inbox import GROUP
from tests.pipeline.factory import corrected, game_log

KEYS = Keys(4)
TOKEN = "inbox-fault-test-token-chosen-by-the-table"


@dataclass
class Load:
    """Games to stream: each game's valid log, and the entries to XADD in order (`valid` is
    False for an entry the rules refuse)."""

    logs: dict[str, list[Envelope]]
    entries: list[tuple[str, dict[str, str], bool]] = field(default_factory=list)
    sent: dict[bytes, bool] = field(default_factory=dict)  # inbox id -> valid

    @classmethod
    def of(cls, games: int, events: int, *, poison: bool = False, seed: int = 0) -> Load:
        """`games` games of `events` valid events, interleaved seq by seq; with `poison`, each
        game also gets one rule-breaking entry (an unknown player) just before a valid one of
        the same seq, which then goes in as the table's fix."""
        rng = random.Random(seed)
        logs = {f"f{seed}-{i}": game_log(f"f{seed}-{i}", events, seed=i) for i in range(games)}
        load = cls(logs)
        bad_at = {g: rng.randint(3, events - 2) for g in logs} if poison else {}
        for seq in range(1, events + 1):
            order = list(logs)
            rng.shuffle(order)
            for g in order:
                if bad_at.get(g) == seq:
                    bad = corrected(g, seq, "nobody", 1)
                    load.entries.append((g, {"data": bad.model_dump_json(), "token": TOKEN}, False))
                data = logs[g][seq - 1].model_dump_json()
                load.entries.append((g, {"data": data, "token": TOKEN}, True))
        return load

    def refused(self) -> set[bytes]:
        return {i for i, ok in self.sent.items() if not ok}


async def xadd_until_sent(client: RedisClient, fields: dict[str, str]) -> bytes:
    """XADD one inbox entry, retrying while Redis is away (a lost reply may add it twice: the
    append is idempotent by event id, so the copy is a harmless duplicate)."""
    while True:
        try:
            return bytes(await client.xadd(KEYS.inbox, fields))  # type: ignore[arg-type]
        except (rexc.ConnectionError, rexc.TimeoutError, OSError):
            await asyncio.sleep(0.05)


async def produce(client: RedisClient, load: Load, pause_s: float = 0.002) -> None:
    """XADD every entry of `load` in order, `pause_s` apart; records the inbox ids."""
    for _, fields, valid in load.entries:
        load.sent[await xadd_until_sent(client, fields)] = valid
        await asyncio.sleep(pause_s)


@dataclass
class Counts:
    """What the inbox made of a load."""

    games_complete: int
    games: int
    stored: int
    expected: int
    out_of_order: int
    dead_letters: int
    valid_dead_lettered: int
    lettered_twice: int
    refused_lettered: int
    refused: int
    pending: int

    def line(self) -> str:
        return (
            f"games complete {self.games_complete}/{self.games}, events stored {self.stored}/"
            f"{self.expected}, out of order {self.out_of_order}, dead letters {self.dead_letters}"
            f" (valid entries {self.valid_dead_lettered}, twice {self.lettered_twice}, refused "
            f"entries lettered {self.refused_lettered}/{self.refused}), pending {self.pending}"
        )

    def settled(self) -> bool:
        return (
            self.games_complete == self.games
            and self.pending == 0
            and self.refused_lettered == self.refused
        )


async def counts(client: RedisClient, load: Load) -> Counts:
    """Count stored events, order, dead letters (by inbox id) and pending entries."""
    store = RedisEventLog(client, KEYS)
    complete = stored = disorder = 0
    for game_id, log in load.logs.items():
        ids = [e.event_id for e in await store.read(game_id)]
        stored += len(ids)
        complete += ids == [e.event_id for e in log]
        disorder += ids != [e.event_id for e in log][: len(ids)]
    letters: Any = await client.xrange(KEYS.dead_letter)
    by_id = Counter(f.get(b"inbox_id", b"").decode() for _, f in letters)
    valid = {i.decode() for i, ok in load.sent.items() if ok}
    refused = {i.decode() for i in load.refused()}
    try:
        pending = int((await client.xpending(KEYS.inbox, GROUP))["pending"])
    except rexc.ResponseError:  # no group yet
        pending = 0
    return Counts(
        complete,
        len(load.logs),
        stored,
        sum(len(v) for v in load.logs.values()),
        disorder,
        len(letters),
        sum(n for i, n in by_id.items() if i in valid),
        sum(1 for n in by_id.values() if n > 1),
        len(refused & set(by_id)),
        len(refused),
        pending,
    )


async def settle(client: RedisClient, load: Load, timeout_s: float) -> Counts:
    """Poll `counts` until the load settled or `timeout_s` passed; prints the last counts."""
    deadline = time.monotonic() + timeout_s
    while True:
        now = await counts(client, load)
        if now.settled() or time.monotonic() > deadline:
            print(f"\n{now.line()}")
            return now
        await asyncio.sleep(0.2)


def letter_reasons(letters: Any) -> list[dict[str, Any]]:
    """The parsed `reason` of every dead letter."""
    return [json.loads(f[b"reason"]) for _, f in letters]


async def _serve() -> None:
    from services.bootstrap import running_inbox
    from services.platform.settings import ServiceSettings

    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with running_inbox(ServiceSettings()):
        print("ready", flush=True)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(_serve())
