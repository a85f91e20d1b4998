"""The Redis layout as the service writes it, for the bench's bulk loads and paced live
appends (both trees read them the same way), and the projector's checkpoints read back.

The keys are the adapter's (`services.adapters.redis.keys.Keys`, 16 shards) and every write is
the games' append script (`services.adapters.redis.append_lua.APPEND_LUA`: expected versions,
idempotent event ids, the shard feed and game index), so the bench cannot drift from the layout
the service stores. No write token: the bench's games are written by a trusted loader.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from services.adapters.redis.append_lua import APPEND_LUA
from services.adapters.redis.connect import parse_target
from services.adapters.redis.keys import Keys, shard_of

SHARDS = 16
KEYS = Keys(SHARDS)
"""The key layout the bench writes and reads."""


def projection(game_id: str) -> str:
    """The game's projection HASH."""
    return KEYS.projection(game_id)


def feed(shard: int) -> str:
    """The shard's feed stream."""
    return KEYS.feed(shard)


def checkpoint(shard: int) -> str:
    """The projector's checkpoint of the shard."""
    return KEYS.checkpoint(shard)


def checkpoint_of(game_id: str) -> str:
    """The projector's checkpoint of the game's shard."""
    return KEYS.checkpoint(shard_of(game_id, SHARDS))


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
        self.script = self.client.register_script(APPEND_LUA)

    def _call(self, pipe: Any, game_id: str, lines: Sequence[str]) -> None:
        """Queue (on a cluster: send) one append call of `lines`, the game's next events in
        seq order: KEYS and ARGV as `RedisEventLog._call` builds them, without a token or an
        expected head, with no names to keep."""
        argv: list[str | int] = [game_id, int(time.time() * 1000), "", "", 0]
        for line in lines:
            head = json.loads(line)
            argv += [head["event_id"], head["seq"], head["type"], line]
        shard = shard_of(game_id, SHARDS)
        keys = [
            KEYS.game_stream(game_id),
            KEYS.feed(shard),
            KEYS.event_ids(game_id),
            KEYS.game_index(shard),
            KEYS.write_token(game_id),
            KEYS.names(game_id),
        ]
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
        # the script's reply ends with the last event's feed id and dup flag
        return {g: out[-2] for g, out in zip(by_game, pipe.execute(), strict=True)}

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
