"""Durable acknowledgements (docs/decisions/0016-durable-acknowledgements.md): "durable acknowledgements" rows: what `SCORELEDGER_APPEND_REPLICAS=1` costs.

One `redis-server` primary with one replica (`REPLICAOF`, both local, loopback), the same
events appended through the real append path (`RedisEventLog.append`, the services' client from
`connect`) with `replicas=0` (acknowledged once the primary has it) and `replicas=1` (`WAIT 1`
on the connection that appended). Two figures each: the latency of one single-event append
(sequential: p50 and p99) and the throughput of `IN_FLIGHT` games appending `CHUNK`-event
batches at once. Only the new tree (the baseline has no such setting).

Run it alone (about half a minute):
    .venv/bin/python -m services.bench.rows_durable [GAMES]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from dataclasses import dataclass

import redis

from contracts.events import parse_event_json
from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.bench import corpus
from services.bench.layout import SHARDS
from services.bench.redis_server import RedisServer
from services.bench.table import Row
from services.bench.trees import Tree, current

CHUNK = 20
IN_FLIGHT = 32
LATENCY_APPENDS = 400


@dataclass(frozen=True)
class Durability:
    """One setting's figures: single-append latency (ms) and batched appends (events/s)."""

    p50_ms: float
    p99_ms: float
    events_per_s: float


def attach(primary: RedisServer, replica: RedisServer, timeout_s: float = 60) -> None:
    """`REPLICAOF` and wait until the link is up."""
    client = redis.Redis(port=replica.port, decode_responses=True)
    client.replicaof("127.0.0.1", primary.port)
    deadline = time.monotonic() + timeout_s
    while client.info("replication").get("master_link_status") != "up":
        if time.monotonic() > deadline:
            raise TimeoutError("the replica did not sync")
        time.sleep(0.05)
    client.close()


async def measure(url: str, games: list[corpus.Game], replicas: int, tag: str) -> Durability:
    """Latency of `LATENCY_APPENDS` one-event appends (one game after another, one at a time),
    then every game of `games` in `CHUNK`-event appends, `IN_FLIGHT` games at once. Game ids
    get `tag` so both settings write fresh games."""
    client = connect(url)
    log = RedisEventLog(client, Keys(SHARDS), replicas=replicas, wait_ms=1000)
    logs = [[parse_event_json(line) for line in g] for g in games]

    def retagged(events: list) -> list:  # type: ignore[type-arg]
        game_id = f"{events[0].game_id}-{tag}"
        return [e.model_copy(update={"game_id": game_id}) for e in events]

    try:
        waits: list[float] = []
        singles = [e for events in logs[:20] for e in retagged(events)][:LATENCY_APPENDS]
        for event in singles:
            started = time.perf_counter()
            await log.append(event.game_id, [event])
            waits.append((time.perf_counter() - started) * 1000)
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(events: list) -> int:  # type: ignore[type-arg]
            events = retagged(events)
            events = [e.model_copy(update={"game_id": e.game_id + "b"}) for e in events]
            async with gate:
                for i in range(0, len(events), CHUNK):
                    await log.append(events[0].game_id, events[i : i + CHUNK])
            return len(events)

        started = time.perf_counter()
        total = sum(await asyncio.gather(*(one(events) for events in logs)))
        rate = total / (time.perf_counter() - started)
    finally:
        await client.aclose()
    cuts = statistics.quantiles(waits, n=100)
    return Durability(statistics.median(waits), cuts[98], rate)


def rows(tree: Tree, games: list[corpus.Game]) -> list[Row]:
    """The rows: `new` is the `replicas=1` figure, the note has the `replicas=0` one."""
    with RedisServer() as primary, RedisServer() as replica:
        attach(primary, replica)
        off = asyncio.run(measure(primary.url, games, 0, "r0"))
        on = asyncio.run(measure(primary.url, games, 1, "r1"))
    n = corpus.count(games)
    where = (
        f"{n} events of {len(games)} games; a primary and one replica on loopback (the same "
        "2 cores); a real network adds its round trip to every acknowledged append"
    )
    return [
        Row(
            "durable acks: one append, p50 (APPEND_REPLICAS 1 vs 0)",
            "ms",
            off.p50_ms,
            on.p50_ms,
            "-",
            None,
            note=f"today = APPEND_REPLICAS=0, new = 1; p99 {off.p99_ms:.2f} vs "
            f"{on.p99_ms:.2f} ms; {LATENCY_APPENDS} one-event appends in a row. {where}",
        ),
        Row(
            "durable acks: batched appends (APPEND_REPLICAS 1 vs 0)",
            "events/s",
            off.events_per_s,
            on.events_per_s,
            "-",
            None,
            note=f"today = APPEND_REPLICAS=0, new = 1; {CHUNK}-event appends, {IN_FLIGHT} "
            f"games at once. {where}",
        ),
    ]


def main() -> None:
    """Measure the rows on the current tree with GAMES simulated games (default 200)."""
    tree = current()
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    games = corpus.simulate(tree, count, seed=19)
    for row in rows(tree, games):
        print(
            f"{row.figure}: replicas=0 {row.today:,.2f}, replicas=1 {row.new:,.2f} {row.unit} "
            f"({row.ratio}); {row.note}"
        )


if __name__ == "__main__":
    main()
