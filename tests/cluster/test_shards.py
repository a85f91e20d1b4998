"""How shards spread over cluster primaries (the "Shards and slots" table of docs/operating/cluster.md), computed
from the key slots and checked against a real cluster made by `redis-cli --cluster create`."""

from __future__ import annotations

from redis.crc import key_slot

from services.adapters.redis.connect import GatedRedisCluster, connect
from services.adapters.redis.keys import Keys


def even_split(primaries: int) -> list[tuple[int, int]]:
    """The slot ranges `redis-cli --cluster create` gives `primaries` primaries."""
    per = 16384 / primaries
    return [(round(i * per), round((i + 1) * per) - 1) for i in range(primaries)]


def shards_per_primary(shards: int, primaries: int) -> list[int]:
    counts = [0] * primaries
    for shard in range(shards):
        slot = key_slot(Keys(shards).feed(shard).encode())
        counts[next(i for i, (a, b) in enumerate(even_split(primaries)) if a <= slot <= b)] += 1
    return counts


def test_every_key_of_a_shard_is_in_one_slot() -> None:
    keys = Keys(64)
    for shard in range(64):
        game = next(f"g{i}" for i in range(10_000) if keys.tag(f"g{i}") == keys.shard_tag(shard))
        names = [keys.feed(shard), keys.game_index(shard), keys.checkpoint(shard)]
        names += [keys.changes(shard), keys.game_stream(game), keys.projection(game)]
        names += [keys.ledger(game), keys.event_ids(game)]
        assert len({key_slot(n.encode()) for n in names}) == 1


def test_the_readme_table() -> None:
    assert shards_per_primary(16, 3) == [6, 4, 6]
    assert shards_per_primary(16, 4) == [4, 4, 4, 4]
    assert (min(shards_per_primary(16, 6)), max(shards_per_primary(16, 6))) == (2, 4)
    assert (min(shards_per_primary(16, 8)), max(shards_per_primary(16, 8))) == (1, 3)
    assert shards_per_primary(64, 3) == [21, 20, 23]
    assert shards_per_primary(64, 4) == [16] * 4
    assert (min(shards_per_primary(64, 6)), max(shards_per_primary(64, 6))) == (9, 12)
    assert (min(shards_per_primary(64, 8)), max(shards_per_primary(64, 8))) == (7, 9)
    for primaries in (3, 4, 5, 6, 8):
        assert max(shards_per_primary(64, primaries)) <= 1.13 * 64 / primaries
    assert max(shards_per_primary(64, 7)) == 12  # 1.31 x an even share


async def test_a_real_three_primary_cluster_places_shards_as_computed(cluster_url: str) -> None:
    client = connect(cluster_url)
    assert isinstance(client, GatedRedisCluster)
    try:
        await client.ping()
        for shards in (16, 64):
            keys = Keys(shards)
            by_port: dict[int, int] = {}
            for shard in range(shards):
                node = client.get_node_from_key(keys.feed(shard))
                assert node is not None
                by_port[int(node.port)] = by_port.get(int(node.port), 0) + 1
            assert len(by_port) == 3
            assert sorted(by_port.values()) == sorted(shards_per_primary(shards, 3))
    finally:
        await client.aclose()
