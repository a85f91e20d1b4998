"""Key names kept per game (services/adapters/redis/keynames.py): the append's and the
credential lookup's KEYS are the names `Keys` builds, kept or not, for any game id and shard
count, and the kept names stay bounded. Source: docs/profiles/request-cost.md."""

from __future__ import annotations

from datetime import UTC, datetime

import redis.asyncio as aioredis
from hypothesis import given
from hypothesis import strategies as st

from services.adapters.redis.credentials import RedisCredentials
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keynames import KeyNames
from services.adapters.redis.keys import Keys, shard_of
from services.ports.eventlog import AppendRequest, LiveProjection

_ids = st.text(min_size=1, max_size=20)


def _built(keys: Keys, game_id: str, live: bool) -> list[str]:
    """The append's KEYS as `RedisEventLog._call` built them before names were kept."""
    shard = shard_of(game_id, keys.shards)
    out = [
        keys.game_stream(game_id),
        keys.feed(shard),
        keys.event_ids(game_id),
        keys.game_index(shard),
        keys.write_token(game_id),
        keys.names(game_id),
    ]
    if live:
        out += [keys.projection(game_id), keys.changes(shard)]
    return out


_LIVE = LiveProjection(1, "live", "trickerion", "{}", b"{}", "2026-01-01T00:00:00+00:00", 10)


@given(st.lists(_ids, min_size=1, max_size=8), st.sampled_from([1, 3, 16]))
def test_append_and_lookup_keys_are_the_built_names(game_ids: list[str], shards: int) -> None:
    keys = Keys(shards)
    client = aioredis.Redis()  # never connected: the calls are only built
    log = RedisEventLog(client, keys)
    credentials = RedisCredentials(client, keys)
    log._keys.limit = 3  # kept names dropped and built again within one example
    credentials._names.limit = 3
    now = datetime.now(UTC)
    for game_id in game_ids * 2:  # the second round reads kept names
        for live in (False, True):
            request = AppendRequest(game_id, [], projection=_LIVE if live else None)
            called, _ = log._call(request, now)
            assert called == _built(keys, game_id, live)
        assert list(credentials._keys(game_id)) == [
            keys.write_token(game_id),
            keys.game_stream(game_id),
        ]


def test_kept_names_are_bounded() -> None:
    kept: KeyNames[tuple[str]] = KeyNames(limit=2)
    for i in range(5):
        kept.put(f"g{i}", (f"k{i}",))
        assert len(kept._kept) <= 2
        assert kept.get(f"g{i}") == (f"k{i}",)
    assert kept.get("g0") is None
