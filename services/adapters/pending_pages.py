"""One consumer's own pending entries taken again page by page, the same on every `InboxQueue`
adapter (`services.ports.inbox.InboxQueue.own_orphans`): each page of its pending ids (oldest
first, idle long enough) is claimed for it again (idle reset), but for the ids to `skip`; the
caller settles a page before the next is read, so an id it starts on meanwhile is skipped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence

from services.ports.inbox import Fields

PendingOf = Callable[[str, int, int, bytes | None], Awaitable[list[bytes]]]
"""`pending_of(consumer, idle_ms, count, after)`: up to `count` ids pending with `consumer`,
idle at least `idle_ms`, after `after` (None: from the start), oldest first."""

Claim = Callable[[str, Sequence[bytes], int], Awaitable[list[tuple[bytes, Fields]]]]
"""`claim(consumer, ids, idle_ms)`: the entries of `ids` taken for `consumer` (idle reset)."""


class OwnOrphans:
    """`InboxQueue.own_orphans` for an adapter that has `pending_of` and `claim`."""

    pending_of: PendingOf
    claim: Claim

    def own_orphans(
        self, consumer: str, idle_ms: int, count: int, skip: Collection[bytes]
    ) -> AsyncIterator[list[tuple[bytes, Fields]]]:
        """See `InboxQueue.own_orphans` (`own_orphan_pages` of this adapter's two reads)."""
        return own_orphan_pages(self.pending_of, self.claim, consumer, idle_ms, count, skip)


async def own_orphan_pages(
    pending_of: PendingOf,
    claim: Claim,
    consumer: str,
    idle_ms: int,
    count: int,
    skip: Collection[bytes],
) -> AsyncIterator[list[tuple[bytes, Fields]]]:
    """The pages of `consumer`'s own pending entries idle at least `idle_ms` ms, `count` ids a
    page, each page's entries as claimed (not returned: deleted while pending, or taken by
    another consumer meanwhile; `skip` is read again before each claim)."""
    after: bytes | None = None
    while True:
        ids = await pending_of(consumer, idle_ms, count, after)
        if not ids:
            return
        after = ids[-1]  # the next page: after this one
        yield await claim(consumer, [i for i in ids if i not in skip], idle_ms)
        if len(ids) < count:
            return
