"""The Redis layout as the append script writes it, written directly (fast bulk loads and paced
live appends that both trees read the same way), and the projector's checkpoints read back.

Keys (services/adapters/redis/keys.py, `{sK}` = shard tag, K = crc32(game) mod shards): game stream
`sl:game:{sK}:GAME` (entry id `<seq>-1`, fields seq, id, type, data), shard feed `sl:feed:{sK}`
(fields game, seq, data), event ids `sl:ids:{sK}:GAME`, game index `sl:games:{sK}`, checkpoint
`sl:ckpt:{sK}` (the last feed id applied), change notices `sl:changes:{sK}` (game, seq).
No expected-version check here: the bench writes logs it generated itself, in seq order.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from services.adapters.redis.connect import parse_target

SHARDS = 16
LOAD_LUA = """
local n = (#ARGV - 2) / 4
local last = ''
for i = 0, n - 1 do
  local eid, seq, etype, data = ARGV[3 + i*4], ARGV[4 + i*4], ARGV[5 + i*4], ARGV[6 + i*4]
  redis.call('XADD', KEYS[1], seq .. '-1', 'seq', seq, 'id', eid, 'type', etype, 'data', data)
  last = redis.call('XADD', KEYS[2], '*', 'game', ARGV[1], 'seq', seq, 'data', data)
  redis.call('HSET', KEYS[3], eid, seq)
end
redis.call('ZADD', KEYS[4], 'NX', ARGV[2], ARGV[1])
return last
"""


def shard_of(game_id: str, shards: int = SHARDS) -> int:
    """crc32 of the game id modulo the shard count (services/adapters/redis/keys.py `shard_of`)."""
    return zlib.crc32(game_id.encode()) % shards


def tag(game_id: str) -> str:
    return f"{{s{shard_of(game_id)}}}"


def game_stream(game_id: str) -> str:
    return f"sl:game:{tag(game_id)}:{game_id}"


def projection(game_id: str) -> str:
    return f"sl:proj:{tag(game_id)}:{game_id}"


def feed(shard: int) -> str:
    return f"sl:feed:{{s{shard}}}"


def checkpoint(shard: int) -> str:
    return f"sl:ckpt:{{s{shard}}}"


def changes(shard: int) -> str:
    return f"sl:changes:{{s{shard}}}"


def sync_client(url: str) -> redis.Redis | RedisCluster:
    """A synchronous client of `url`: `redis.Redis`, or `RedisCluster` for a `redis+cluster://`
    URL (services/adapters/redis/connect.py parses both the same way)."""
    target = parse_target(url)
    if target.cluster:
        return RedisCluster.from_url(target.url)
    return redis.Redis.from_url(url)


class Loader:
    """Appends events of generated games into the layout, one Lua call per (game, chunk); on
    a Redis Cluster each call is its own command (redis-py cannot pipeline scripts there)."""

    def __init__(self, url: str) -> None:
        self.client: Any = sync_client(url)
        self.cluster = isinstance(self.client, RedisCluster)
        self.script = self.client.register_script(LOAD_LUA)

    def _call(self, pipe: Any, game_id: str, lines: Sequence[str]) -> None:
        t = tag(game_id)
        argv: list[str | int] = [game_id, int(time.time() * 1000)]
        for line in lines:
            head = json.loads(line)
            argv += [head["event_id"], head["seq"], head["type"], line]
        keys = [game_stream(game_id), f"sl:feed:{t}", f"sl:ids:{t}:{game_id}", f"sl:games:{t}"]
        self.script(keys=keys, args=argv, client=self.client if self.cluster else pipe)

    def load(self, games: Iterable[Sequence[str]], chunk: int = 200, calls: int = 50) -> int:
        """Store every game whole (chunks of `chunk` events, `calls` Lua calls per round trip);
        returns the events stored."""
        n = 0
        pipe = self.client.pipeline(transaction=False)
        pending = 0
        for game in games:
            game_id = json.loads(game[0])["game_id"]
            for i in range(0, len(game), chunk):
                self._call(pipe, game_id, game[i : i + chunk])
                pending += 1
                if pending >= calls:
                    pipe.execute()
                    pending = 0
            n += len(game)
        if pending:
            pipe.execute()
        return n

    def append(self, batch: Sequence[str]) -> dict[str, bytes]:
        """Append a batch of events (any games, each game's in seq order) in one round trip;
        returns each game's last feed entry id (its ms part is Redis's clock at the XADD)."""
        by_game: dict[str, list[str]] = {}
        for line in batch:
            by_game.setdefault(json.loads(line)["game_id"], []).append(line)
        pipe = self.client.pipeline(transaction=False)
        for game_id, lines in by_game.items():
            self._call(pipe, game_id, lines)
        return dict(zip(by_game, pipe.execute(), strict=True))

    def behind(self) -> int:
        """Shards whose checkpoint is not yet at their feed's last entry."""
        pipe = self.client.pipeline(transaction=False)
        for shard in range(SHARDS):
            pipe.xrevrange(feed(shard), "+", "-", count=1)
            pipe.get(checkpoint(shard))
        out = pipe.execute()
        return sum(
            1 for last, ckpt in zip(out[::2], out[1::2], strict=True) if last and ckpt != last[0][0]
        )

    def flush(self) -> None:
        if self.cluster:
            self.client.flushall(target_nodes=RedisCluster.PRIMARIES)
        else:
            self.client.flushall()

    def close(self) -> None:
        self.client.close()
