"""The projector's read-ahead: the next XREAD of the feeds rides in the pipeline of a batch's
writes (`ScriptCoalescer`), so what arrived while the batch was folded is read without a round
trip of its own (issue 9: two round trips per read, each a wake-up that waits for a CPU under
load; at 1,000 events/s about half the reads were fed this way, docs/profiles/live-1000.txt).

The read is non-blocking; the next step uses its reply only if the held feeds' positions are
still exactly those it read after (nothing acquired, lost or reloaded since) and it found
entries; otherwise the step makes its blocking XREAD as before. Single node only (on a Redis
Cluster every shard feed is read on its own, `fanout.xread_streams`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster


def _retrieved(reply: asyncio.Future[Any]) -> None:
    if not reply.cancelled():
        reply.exception()  # marks it retrieved: no "never retrieved" warning when unused


class ReadAhead:
    """At most one queued read of the feeds after the current batch (module docstring).

    Args:
        client: the projector's client (the coalescer of its writes is shared per client).
        count: XREAD COUNT (the loop's `batch`).
    """

    def __init__(self, client: RedisClient, count: int) -> None:
        self.client = client
        self.count = count
        self._queued: tuple[dict[str, str], asyncio.Future[Any]] | None = None

    def queue(self, after: dict[str, str]) -> None:
        """Queue the read of every feed in `after` (feed -> last id applied) with the writes
        of this event-loop turn; replaces one not used yet. No-op on a cluster."""
        if is_cluster(self.client):
            return
        reply = ScriptCoalescer.of(self.client).command(
            "XREAD", "COUNT", self.count, "STREAMS", *after, *after.values()
        )
        reply.add_done_callback(_retrieved)  # an unused failed read is not an error
        self._queued = (after, reply)

    def drop(self) -> None:
        """Forget the queued read (after a failed step: read again from the checkpoints)."""
        self._queued = None

    async def reply(self, positions: dict[str, str]) -> Any:
        """The queued read's XREAD reply if it read exactly `positions`, else None (then the
        caller reads itself); consumed either way. Raises: the read's error."""
        queued, self._queued = self._queued, None
        if queued is None or queued[0] != positions:
            return None
        return await queued[1]
