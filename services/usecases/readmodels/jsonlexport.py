"""The JSONL export of a game's log, streamed in bounded chunks, each read in its client's turn
of the replay queue (`fairqueue.FairQueue`) like every other replay-class read.

Before, `GET /games/{id}/export/events.jsonl` read a whole log (11 MB for a 20,000-event game)
at once outside the queue: any client could run as many as it liked beside everyone's replays.
Now each chunk of `chunk` events is one job of the queue: a client exporting a long game gets one
turn per round (others' replays run between its chunks), its exports count against its
per-client limit, and a refusal of the first chunk is the usual 429 / 503 with `Retry-After`
before the answer starts. A later chunk refused (the queue full meanwhile) is waited for and
asked again (at most `LATER_TRIES` times; then the stream ends early and the download is cut
off, which a client sees as an incomplete transfer). Bytes: the stored envelopes byte for byte,
one a line, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from services.ports.eventlog import EventLog
from services.runtime.fairqueue import FairQueue
from services.usecases.readmodels.errors import ReplayRefused

CHUNK = 1000
"""Events per chunk: one page of the log's reads (`offloop.READ_PAGE`), about 0.5 MB."""
LATER_TRIES = 10
LATER_WAIT_MAX_S = 5.0


async def _chunk(
    log: EventLog, queue: FairQueue, client: str, game_id: str, first: int, last: int
) -> bytes:
    """Seqs `first..last` as JSONL, read in `client`'s turn (raises `ReplayRefused`)."""

    async def read() -> bytes:
        return b"".join(data + b"\n" for data in await log.read_raw(game_id, first, last))

    return await queue.run(client, game_id, read)


async def _later(
    log: EventLog, queue: FairQueue, client: str, game_id: str, first: int, last: int
) -> bytes:
    """`_chunk`, waiting out a refusal (its Retry-After, at most `LATER_WAIT_MAX_S`) up to
    `LATER_TRIES` times: the answer's status is already sent."""
    for attempt in range(LATER_TRIES):
        try:
            return await _chunk(log, queue, client, game_id, first, last)
        except ReplayRefused as refused:
            if attempt == LATER_TRIES - 1:
                raise
            await asyncio.sleep(min(float(refused.retry_after_s), LATER_WAIT_MAX_S))
    raise AssertionError("unreachable")  # pragma: no cover


async def jsonl_chunks(
    log: EventLog, queue: FairQueue, game_id: str, version: int, client: str, chunk: int = CHUNK
) -> AsyncIterator[bytes]:
    """The log of `game_id` up to `version` as JSONL chunks of at most `chunk` events. The first
    chunk is read before this returns, so its refusal raises here.

    Raises:
        ReplayRefused: the first chunk refused by the queue's bounds.
    """
    head = await _chunk(log, queue, client, game_id, 1, min(chunk, version))

    async def stream() -> AsyncIterator[bytes]:
        yield head
        for first in range(chunk + 1, version + 1, chunk):
            yield await _later(log, queue, client, game_id, first, min(version, first + chunk - 1))

    return stream()
