"""The simulator's outputs: JSONL files that fold, inbox entries in order, HTTP posts in seq
order per game with the write token sent back."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import redis.asyncio as aioredis

from contracts.events import parse_event_json
from domain.fold import fold
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.keys import Keys
from services.bootstrap import redis_ports, use_cases
from services.cli.sinks import HttpSender, send_inbox, write_jsonl
from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
from services.platform.settings import ServiceSettings
from services.simulator.tables import simulate_game, simulate_tables
from services.usecases.inbox.settle import Inbox


def test_jsonl_one_file_per_game_that_folds(tmp_path: Path) -> None:
    paths = write_jsonl((simulate_game("mixed", 3, t) for t in range(3)), tmp_path)
    assert sorted(p.name for p in paths) == sorted(p.name for p in tmp_path.iterdir())
    assert len(paths) == 3
    for path in paths:
        events = [parse_event_json(line) for line in path.read_text().splitlines()]
        assert fold(events).status == "final"


async def test_inbox_receives_every_event_in_order(
    redis_client: aioredis.Redis, redis_url: str
) -> None:
    expected = list(simulate_tables("mixed", 4, 3))
    sent = await send_inbox(simulate_tables("mixed", 4, 3), redis_url, rate=50_000)
    entries = await redis_client.xrange(Keys().inbox)
    assert sent == len(expected) == len(entries)
    assert [json.loads(f[b"data"])["event_id"] for _, f in entries] == [
        str(e.event_id) for e in expected
    ]


async def test_http_posts_keep_seq_order_and_send_the_token() -> None:
    seen: list[tuple[str, int, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append((body[0]["game_id"], body[0]["seq"], request.headers.get("authorization")))
        return httpx.Response(201, json={"write_token": "t0k"} if body[0]["seq"] == 1 else {})

    async with httpx.AsyncClient(
        base_url="http://ingest", transport=httpx.MockTransport(handler)
    ) as client:
        sender = HttpSender(client)
        for event in simulate_tables("penumbra", 5, 2):
            await sender.submit([event])
    for game in {g for g, _, _ in seen}:
        posts = [(s, auth) for g, s, auth in seen if g == game]
        assert [s for s, _ in posts] == list(range(1, len(posts) + 1))
        # chosen before the first post (a retried creating post must carry it), then kept
        assert posts[0][1] is not None
        assert posts[0][1].startswith("Bearer ")
        assert all(auth == posts[0][1] for _, auth in posts)


async def test_inbox_entries_create_their_games_and_fill_them(
    redis_client: RedisClient, redis_url: str
) -> None:
    """The entries `simulate --inbox` sends are accepted by the real inbox handler: each game
    is created by its first entry (with the token the simulator chose) and holds every event."""
    expected = list(simulate_tables("mixed", 4, 3))
    await send_inbox(iter(expected), redis_url, rate=50_000)
    ports = redis_ports(redis_client, Keys())
    record = use_cases(ports, ServiceSettings()).record
    inbox = Inbox(
        RedisInboxQueue(redis_client, Keys().inbox, game_of_entry),
        Keys(),
        record,
        ports.letters,
        form=INBOX_FORM,
    )
    await inbox.ensure_group()
    stream = await redis_client.xrange(Keys().inbox)
    ids, entries = [i for i, _ in stream], [f for _, f in stream]
    tokens = {f[b"game"]: f[b"token"] for f in entries}
    assert len(set(tokens.values())) == len(tokens) == 3  # one token per game
    assert all(f[b"token"] == tokens[f[b"game"]] for f in entries)
    await inbox.process(ids, entries, "test")
    assert await ports.letters.read() == []
    for game in {e.game_id for e in expected}:
        events = sum(e.game_id == game for e in expected)
        assert await ports.log.version(game) == events
