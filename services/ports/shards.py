"""The partition rule every store shares: a game's shard, so one game's keys, feed, projection and
checkpoint live together (one Redis Cluster slot; one memory partition).

Source: docs/decisions/0003-shards-and-hash-tags.md (hash tags by shard, N = 16 feeds).
"""

from __future__ import annotations

import zlib


def shard_of(game_id: str, shards: int) -> int:
    """The shard (0..shards-1) of a game: crc32 of its id, modulo the shard count."""
    return zlib.crc32(game_id.encode()) % shards
