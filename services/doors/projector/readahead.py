"""The projector's read-ahead: the next read of the feeds rides with a batch's writes
(`ShardFeeds.read_soon`; on Redis in the same pipeline), so what arrived while the batch was
folded is read without a round trip of its own (docs/decisions/0012-hot-reads-and-off-loop-replays.md: two round trips per read, each a
wake-up that waits for a CPU under load; at 1,000 events/s about half the reads were fed this
way, docs/profiles/live-1000.txt).

Queued only after a read that filled some shard's `count` (a catch-up: more is waiting, for
sure). After a shorter read the feeds were drained when read, and a batch the appends projected
is one write (`Projections.advance`): under the all-roles load 3% of such read-aheads found
anything (308 sent, 10 used; docs/profiles/projector-round-trips.md), so each was one more
command to send, run and parse, for a round trip saved once in thirty.

The read does not wait; the next step uses its reply only if the held feeds' positions are
still exactly those it read after (nothing acquired, lost or reloaded since) and it found
entries; otherwise the step makes its waiting read as before. An adapter without such a read
(a Redis Cluster, where every shard feed is read on its own; memory) answers None: no-op.
"""

from __future__ import annotations

import asyncio

from services.ports.feeds import FeedBatch, ShardFeeds


class ReadAhead:
    """At most one queued read of the feeds after the current batch (module docstring).

    Args:
        feeds: the projector's shard feeds.
        count: most entries per shard per read (the loop's `batch`).
    """

    def __init__(self, feeds: ShardFeeds, count: int) -> None:
        self.feeds = feeds
        self.count = count
        self._queued: tuple[dict[int, str], asyncio.Future[list[FeedBatch]]] | None = None

    def queue(self, after: dict[int, str]) -> None:
        """Queue the read of every feed in `after` (shard -> last id applied) with the writes
        of this event-loop turn; replaces one not used yet."""
        reply = self.feeds.read_soon(after, self.count)
        self._queued = None if reply is None else (after, reply)

    def drop(self) -> None:
        """Forget the queued read (after a failed step: read again from the checkpoints)."""
        self._queued = None

    async def reply(self, positions: dict[int, str]) -> list[FeedBatch] | None:
        """The queued read's batches if it read exactly `positions`, else None (then the
        caller reads itself); consumed either way. Raises: the read's error."""
        queued, self._queued = self._queued, None
        if queued is None or queued[0] != positions:
            return None
        return await queued[1]
