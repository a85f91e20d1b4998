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

from contracts.envelope import Envelope
from contracts.events import dump_event_json
from services.keys import Keys

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
    """The inbox entry of one event: explicit fields readable by any tool (research/tech.md
    §1.5 decision): `game`, `type`, `id`, `data` = the envelope JSON, and `token`, the game's
    write token (the inbox has no reply channel, so the entry creating a game carries the token
    its creator chose, and every later entry the same; README "Authorization")."""
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
    keys: Keys | None = None,
    on_sent: OnSent = lambda _: None,
) -> int:
    """XADD every event to the inbox stream at `rate` events/s (one pipeline per tick), each
    game's entries with a write token chosen for it here (`secrets.token_urlsafe`, 43
    characters; simulated games are nobody's, so the token is not kept).

    `redis_url` may be a Redis Cluster (`redis+cluster://h:p,...`, or `SCORELEDGER_REDIS_CLUSTER`
    with a plain URL): the client is the services' own (`connect_from`), with the environment's
    ACL user and password. The inbox is one stream, so each pipeline goes to one node.
    """
    from services.adapters.redis.connect import connect_from
    from services.settings import CommonSettings

    inbox = (keys or Keys()).inbox
    client = connect_from(CommonSettings(redis_url=redis_url))
    tokens: dict[str, str] = {}
    sent = 0
    try:
        async for chunk in paced(events, rate):
            async with client.pipeline(transaction=False) as pipe:
                for event in chunk:
                    token = tokens.get(event.game_id)
                    if token is None:
                        token = tokens[event.game_id] = secrets.token_urlsafe(32)
                    pipe.xadd(inbox, inbox_fields(event, token))  # type: ignore[arg-type]
                await pipe.execute()
            sent += len(chunk)
            on_sent(len(chunk))
    finally:
        await client.aclose()
    return sent


class HttpSender:
    """POSTs events to `/games/{game_id}/events` (a JSON array body), one game's posts chained
    so they arrive in seq order; keeps each game's write token from its first 201."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.tokens: dict[str, str] = {}
        self.last: dict[str, asyncio.Task[None]] = {}
        self.errors: list[str] = []

    async def post(self, batch: list[Envelope]) -> None:
        """POST one batch of one game; a refusal is recorded in `errors` (the run goes on)."""
        game_id = batch[0].game_id
        headers = {"content-type": "application/json"}
        if game_id in self.tokens:
            headers["authorization"] = f"Bearer {self.tokens[game_id]}"
        body = "[" + ",".join(dump_event_json(e) for e in batch) + "]"
        response = await self.client.post(f"/games/{game_id}/events", content=body, headers=headers)
        if response.status_code >= 300:
            self.errors.append(
                f"{game_id} seq {batch[0].seq}: {response.status_code} {response.text[:200]}"
            )
            return
        token = _token_in(response)
        if token:
            self.tokens[game_id] = token

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
) -> tuple[int, list[str]]:
    """POST events at `rate` events/s, grouping up to `batch` consecutive events of a game per
    request. Returns (events sent, refusals)."""
    sent = 0
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        sender = HttpSender(client)
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
        await asyncio.gather(*sender.last.values())
    return sent, sender.errors
