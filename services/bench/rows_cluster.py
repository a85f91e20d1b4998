"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): "1 vs 3 Redis Cluster nodes" rows: the same log appended through the real append
path (`RedisEventLog.append`, the services' own client from `connect`) and then caught up by
one projector process (`python -m services.cli.projector`), on one `redis-server` and on a local
3-master Redis Cluster (`services.adapters.redis.localcluster`, the one `scoreledger demo
--cluster` starts), on the same machine.

Run it alone (about a minute):
    .venv/bin/python -m services.bench.rows_cluster [GAMES]
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass

from redis.cluster import RedisCluster

from contracts.events import parse_event_json
from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.adapters.redis.launcher import server_exe
from services.adapters.redis.localcluster import throwaway_cluster
from services.bench import corpus
from services.bench.layout import SHARDS, Loader, sync_client
from services.bench.proc import cpu_of
from services.bench.rows_projector import applied, projector
from services.bench.table import Row
from services.bench.trees import Tree, current

CHUNK = 20
"""Events per append call (one HTTP batch of a table)."""
IN_FLIGHT = 32
"""Games appending at once (concurrent ingest requests)."""


@dataclass(frozen=True)
class OnRedis:
    """One target's figures: appends/s, catch-up events/s, Redis CPU seconds, complete?"""

    appends_per_s: float
    catch_up_per_s: float
    redis_cpu_s: float
    complete: bool


def redis_pids(url: str) -> list[int]:
    """PIDs of the Redis node(s) behind `url` (every primary of a cluster)."""
    client = sync_client(url)
    try:
        if not isinstance(client, RedisCluster):
            return [int(client.info("server")["process_id"])]
        per_node = client.info("server", target_nodes=RedisCluster.PRIMARIES)
        return [int(info["process_id"]) for info in per_node.values()]
    finally:
        client.close()


async def append_all(url: str, games: list[corpus.Game]) -> int:
    """Append every game through `RedisEventLog.append` in chunks of `CHUNK`, `IN_FLIGHT`
    games at once (each game's chunks in order); returns the events appended."""
    client = connect(url)
    log = RedisEventLog(client, Keys(SHARDS))
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def one(game: corpus.Game) -> int:
        events = [parse_event_json(line) for line in game]
        async with gate:
            for i in range(0, len(events), CHUNK):
                await log.append(events[0].game_id, events[i : i + CHUNK])
        return len(events)

    try:
        return sum(await asyncio.gather(*(one(g) for g in games)))
    finally:
        await client.aclose()


def measure(tree: Tree, url: str, games: list[corpus.Game], timeout_s: float = 300) -> OnRedis:
    """Flush `url`, append `games` (timed), then time one projector's catch-up from zero."""
    loader = Loader(url)
    loader.flush()
    pids = redis_pids(url)
    cpu0 = sum(cpu_of(p) for p in pids)
    started = time.perf_counter()
    events = asyncio.run(append_all(url, games))
    append_s = time.perf_counter() - started
    started = time.perf_counter()
    with projector(tree, url):
        while loader.behind() and time.perf_counter() - started < timeout_s:
            time.sleep(0.02)
        catch_up_s = time.perf_counter() - started
    loader.close()
    ids = [parse_event_json(g[0]).game_id for g in games]
    complete = applied(url, ids) == events
    cpu = sum(cpu_of(p) for p in pids) - cpu0
    return OnRedis(events / append_s, events / catch_up_s, cpu, complete)


def nodes(tree: Tree, single_url: str, games: list[corpus.Game]) -> list[Row]:
    """The two "1 vs 3 Redis Cluster nodes" rows: `new` is the 3-master figure, the note has
    the one-node figure and the ratio."""
    exe = server_exe()  # raises FileNotFoundError, saying how to get one
    one = measure(tree, single_url, games)
    with throwaway_cluster(exe, masters=3) as cluster_url:
        three = measure(tree, cluster_url, games)
    n = corpus.count(games)
    rows = []
    for figure, a, b in (
        ("appends (RedisEventLog.append)", one.appends_per_s, three.appends_per_s),
        ("projector catch-up (1 process)", one.catch_up_per_s, three.catch_up_per_s),
    ):
        rows.append(
            Row(
                f"1 vs 3 Redis Cluster nodes: {figure}",
                "events/s",
                None,
                b,
                "-",
                None,
                ratio_text=f"{b / a:.2f}x one node",
                note=f"{n} events of {len(games)} games, {SHARDS} shards; one node "
                f"{a:,.0f}/s, 3 primaries {b:,.0f}/s; Redis CPU {one.redis_cpu_s:.1f} s on one "
                f"node, {three.redis_cpu_s:.1f} s over three; "
                f"{'complete' if one.complete and three.complete else 'GAMES INCOMPLETE'}. "
                "Limit: one Python process (appender or projector) on 2 cores shared with "
                "every Redis node; on a cluster each read of all shards is one round trip per "
                "node and scripts are not pipelined (one call per slot).",
            )
        )
    return rows


def main() -> None:
    """Measure the rows on the current tree with GAMES simulated games (default 300)."""
    from services.bench.redis_server import RedisServer

    tree = current()
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    games = corpus.simulate(tree, count, seed=10)
    with RedisServer() as server:
        for row in nodes(tree, server.url, games):
            print(f"{row.figure}: {row.new:,.0f} {row.unit} ({row.ratio}); {row.note}")


if __name__ == "__main__":
    main()
