"""Where simulated events go: JSONL files (one per game), HTTP ingest, or the Redis inbox stream,
the last two paced at a chosen rate in events per second.

Pacing: events are released in ticks of `TICK_S`; a tick that falls behind is not made up by
bursting (the offered rate is a ceiling). A game's events are always sent in seq order.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_delay

from contracts.envelope import Envelope
from contracts.events import dump_event_json

TICK_S = 0.01
"""Pacing granularity: 10 ms."""

OnSent = Callable[[int], None]


def write_jsonl(games: Iterable[Iterable[Envelope]], directory: Path) -> list[Path]:
    """Write each game to `<directory>/<game_id>.jsonl`, one envelope per line; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for game in games:
        lines = [dump_event_json(e) for e in game]
        if not lines:
            continue
        path = directory / f"{game_id_of(lines[0])}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def game_id_of(line: str) -> str:
    """The game id of one envelope JSON line (avoids re-parsing the whole event)."""
    start = line.index('"game_id":"') + len('"game_id":"')
    return line[start : line.index('"', start)]


async def paced(events: Iterator[Envelope], rate: float) -> AsyncIterator[list[Envelope]]:
    """Yield lists of events, `rate * TICK_S` per tick on average, on a fixed tick schedule."""
    per_tick = rate * TICK_S
    owed = 0.0
    next_tick = time.perf_counter()
    while True:
        owed += per_tick
        take = int(owed)
        owed -= take
        chunk = list(islice(events, take))
        if take and not chunk:
            return
        if chunk:
            yield chunk
        next_tick += TICK_S
        delay = next_tick - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            next_tick = time.perf_counter()  # behind: do not burst to catch up


def inbox_fields(event: Envelope, token: str) -> dict[str, str]:
    """The inbox entry of one event: explicit fields readable by any tool (docs/decisions/0004-projector-catch-up-subscription.md
    §1.5 decision): `game`, `type`, `id`, `data` = the envelope JSON, and `token`, the game's
    write token (the inbox has no reply channel, so the entry creating a game carries the token
    its creator chose, and every later entry the same; docs/integrating/http.md, "Writes need the game's token")."""
    return {
        "game": event.game_id,
        "type": event.type,
        "id": str(event.event_id),
        "data": dump_event_json(event),
        "token": token,
    }


async def send_inbox(
    events: Iterator[Envelope],
    redis_url: str,
    rate: float,
    shards: int = 16,
    on_sent: OnSent = lambda _: None,
) -> int:
    """XADD every event to the inbox stream at `rate` events/s (one pipeline per tick), each
    game's entries with a write token chosen for it here (`secrets.token_urlsafe`, 43
    characters; simulated games are nobody's, so the token is not kept).

    `redis_url` may be a Redis Cluster (`redis+cluster://h:p,...`, or `SCORELEDGER_REDIS_CLUSTER`
    with a plain URL): the client is the services' own (`services.bootstrap.inbox_writer`),
    with the environment's ACL user and password. The inbox is one stream, so each pipeline
    goes to one node.
    """
    from services.bootstrap import inbox_writer
    from services.platform.settings import CommonSettings

    tokens: dict[str, str] = {}
    sent = 0
    async with inbox_writer(CommonSettings(redis_url=redis_url), shards) as inbox:
        async for chunk in paced(events, rate):
            entries = []
            for event in chunk:
                token = tokens.get(event.game_id)
                if token is None:
                    token = tokens[event.game_id] = secrets.token_urlsafe(32)
                fields = inbox_fields(event, token)
                entries.append({k.encode(): v.encode() for k, v in fields.items()})
            await inbox.add(entries)  # one pipeline
            sent += len(chunk)
            on_sent(len(chunk))
    return sent


TRANSIENT_STATUS = frozenset({429, 502, 503, 504})
"""Answers that say "later": retried (after `Retry-After` when given), never counted refused."""


class TargetDown(Exception):
    """The ingest answered nothing but transient errors for `retry_for_s` seconds."""

    def __init__(self, url: str, retry_for_s: float, last: str) -> None:
        super().__init__(f"{url} gave only transient errors for {retry_for_s:.0f} s (last: {last})")
        self.last = last


class _Later(Exception):
    """A transient answer (`TRANSIENT_STATUS`), with the server's `Retry-After` seconds."""

    def __init__(self, status: int, retry_after_s: float) -> None:
        super().__init__(f"HTTP {status}")
        self.retry_after_s = retry_after_s


def _retry_after(response: httpx.Response) -> float:
    value = response.headers.get("retry-after", "")
    return min(float(value), 30.0) if value.isdigit() else 0.0


def _wait(state: RetryCallState) -> float:
    """Exponential backoff from 50 ms to 2 s, at least the server's `Retry-After`."""
    backoff: float = min(2.0, 0.05 * 2 ** (state.attempt_number - 1))
    error = state.outcome.exception() if state.outcome is not None else None
    if isinstance(error, _Later):
        return max(backoff, error.retry_after_s)
    return backoff


class HttpSender:
    """POSTs events to `/games/{game_id}/events` (a JSON array body), one game's posts chained
    so they arrive in seq order. Each game's write token is chosen here before its first post
    (as `scoreledger publish` does), so a retried creating post is answered as a duplicate.

    Transient failures (a dropped or refused connection, a timeout, 429/502/503/504) are retried
    with exponential backoff (50 ms to 2 s, at least `Retry-After`) for up to `retry_for_s`
    seconds per post, then `TargetDown` is raised. Retrying is safe: appends are idempotent by
    event id. Source: issue (simulate died on one `httpx.ReadError` at 5,000 events/s)."""

    def __init__(self, client: httpx.AsyncClient, retry_for_s: float = 60.0) -> None:
        self.client = client
        self.retry_for_s = retry_for_s
        self.tokens: dict[str, str] = {}
        self.last: dict[str, asyncio.Task[None]] = {}
        self.errors: list[str] = []
        self.retries = 0  # transient failures retried
        self.acknowledged = 0  # events in posts answered 2xx

    async def post(self, batch: list[Envelope]) -> None:
        """POST one batch of one game; a refusal is recorded in `errors` (the run goes on).

        Raises: `TargetDown` when only transient errors came for `retry_for_s` seconds."""
        game_id = batch[0].game_id
        token = self.tokens.setdefault(game_id, secrets.token_urlsafe(32))
        headers = {"content-type": "application/json", "authorization": f"Bearer {token}"}
        body = "[" + ",".join(dump_event_json(e) for e in batch) + "]"
        path = f"/games/{game_id}/events"
        retrying = AsyncRetrying(
            retry=retry_if_exception_type((httpx.TransportError, _Later)),
            wait=_wait,
            stop=stop_after_delay(self.retry_for_s),
            before_sleep=self._count,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    response = await self.client.post(path, content=body, headers=headers)
                    if response.status_code in TRANSIENT_STATUS:
                        raise _Later(response.status_code, _retry_after(response))
        except (httpx.TransportError, _Later) as error:
            last = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            raise TargetDown(str(self.client.base_url), self.retry_for_s, last) from None
        if response.status_code >= 300:
            self.errors.append(
                f"{game_id} seq {batch[0].seq}: {response.status_code} {response.text[:200]}"
            )
        else:
            self.acknowledged += len(batch)

    def _count(self, _: RetryCallState) -> None:
        self.retries += 1

    def submit(self, batch: list[Envelope]) -> asyncio.Task[None]:
        """Schedule `batch` after the game's previous post."""
        previous = self.last.get(batch[0].game_id)

        async def run() -> None:
            if previous is not None:
                await previous
            await self.post(batch)

        task = asyncio.create_task(run())
        self.last[batch[0].game_id] = task
        return task


def _token_in(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    if isinstance(body, dict):
        for key in ("write_token", "token"):
            value = body.get(key)
            if isinstance(value, str):
                return value
    return None


async def send_http(
    events: Iterator[Envelope],
    url: str,
    rate: float,
    batch: int = 1,
    on_sent: OnSent = lambda _: None,
    retry_for_s: float = 60.0,
) -> tuple[int, list[str]]:
    """POST events at `rate` events/s, grouping up to `batch` consecutive events of a game per
    request; transient errors retried for up to `retry_for_s` per post (`HttpSender`). Returns
    (events sent, refusals).

    Raises: `TargetDown` (the posts still in flight cancelled) when the target stays down."""
    sent = 0
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        sender = HttpSender(client, retry_for_s)
        try:
            sent = await _send_paced(sender, events, rate, batch, on_sent)
        finally:
            for task in sender.last.values():
                task.cancel()
            await asyncio.gather(*sender.last.values(), return_exceptions=True)
    return sent, sender.errors


async def _send_paced(
    sender: HttpSender, events: Iterator[Envelope], rate: float, batch: int, on_sent: OnSent
) -> int:
    """Submit the paced events in per-game batches and wait for every post; returns the events
    submitted. Raises the first `TargetDown` as soon as a post gives up."""
    sent = 0
    async for chunk in paced(events, rate):
        groups: dict[str, list[Envelope]] = {}
        for event in chunk:
            group = groups.setdefault(event.game_id, [])
            if len(group) >= batch:
                sender.submit(group)
                group = groups[event.game_id] = []
            group.append(event)
        for group in groups.values():
            sender.submit(group)
        sent += len(chunk)
        on_sent(len(chunk))
        for task in sender.last.values():
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    await asyncio.gather(*sender.last.values())
    return sent
