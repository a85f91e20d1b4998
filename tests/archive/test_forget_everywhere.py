"""After `scoreledger forget pen-demo-3p mira` (the winner) no tier holds "Mira" anywhere: no
Redis key or value (the webhook deliveries kept for replay too), no archived byte (the directory's files decompressed and every base64
field of their headers decoded; PostgreSQL's rows with their bytea columns), no answer;
before and after sealing (docs/forget.md)."""

from __future__ import annotations

import base64
import binascii
import contextlib
import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from services.cli.forget import COPIES, forget_player
from services.platform.settings import CommonSettings
from tests.archive.conftest import Stack
from tests.archive.reads import live_first_frame, read_routes
from tests.archive.test_forget import named, redis_values
from tests.names.helpers import GAME

pytestmark = pytest.mark.redis

stack = named
"""The service with the example game published and projected final (`test_forget.named`)."""

NAME = b"Mira"

SEQ = 91
"""The example's last seq: contracts/examples/penumbra-3p.jsonl has 91 events."""

KEPT_BODIES = 4
"""The kept deliveries naming Mira: the start, the void and `game.ended` (standings attached)
and one `standings.changed` (`_kept_webhooks`)."""


def _decoded(value: Any) -> list[bytes]:
    """`value` (parsed JSON) as bytes, and every string in it that is base64 decoded."""
    out: list[bytes] = []
    if isinstance(value, dict):
        for item in value.values():
            out += _decoded(item)
    elif isinstance(value, list):
        for item in value:
            out += _decoded(item)
    elif isinstance(value, str):
        out.append(value.encode())
        with contextlib.suppress(binascii.Error, ValueError):
            out.append(base64.b64decode(value, validate=True))
    return out


def every_archived_byte(archive_url: str) -> list[bytes]:
    """Every byte the archive holds, decoded: each file decompressed, each line, and each
    base64 string of each line; or each row's columns, bytea ones as bytes."""
    out: list[bytes] = []
    if archive_url.startswith("file://"):
        root = Path(urlsplit(archive_url).path)
        for path in sorted(root.iterdir()) if root.exists() else []:
            data = path.read_bytes()
            raw = gzip.decompress(data) if path.suffix == ".gz" else data
            out.append(raw)
            for line in raw.splitlines():
                try:
                    out += _decoded(json.loads(line))
                except ValueError:
                    continue
        return out
    with psycopg.connect(archive_url) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            ).fetchall()
        ]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"').fetchall():
                for cell in row:
                    out.append(
                        bytes(cell) if isinstance(cell, bytes | memoryview) else str(cell).encode()
                    )
    return out


async def _kept_webhooks(stack: Stack) -> None:
    """Deliveries of the game kept as the webhooks role keeps them (one logged, one pending),
    with bodies built from the game's events and standings as read now (naming Mira)."""
    from datetime import UTC, datetime

    from domain.fold import fold
    from domain.standings import standings
    from services.webhooks.ports import Delivery, Endpoint, Secret
    from services.webhooks.usecases.messages import (
        event_messages,
        standings_message,
        standings_summary,
    )

    store = stack.assembled.service.ports.webhooks
    endpoint = Endpoint("ep-1", "https://hooks.example/in", None, (), (Secret("whsec_x"),), 0)
    await store.put_endpoint(endpoint)
    events = await stack.assembled.service.ports.named_log().read(GAME)
    summary = standings_summary(standings(fold(events)))
    bodies = [b for _, _, b in event_messages(events, summary)]
    bodies.append(standings_message(GAME, summary, datetime(2026, 12, 6, tzinfo=UTC)))
    kept = [Delivery(f"msg_{i}", endpoint.id, "x", GAME, b, 0) for i, b in enumerate(bodies)]
    for delivery in kept:
        await store.enqueue(delivery, 100, 100)
    await store.settle(kept[0], "delivered", 200, 100)
    assert [v for v in redis_values(stack.redis_url, ":wh:") if NAME in v]


async def _forget(stack: Stack, archive_url: str) -> tuple[str, ...]:
    settings = CommonSettings(redis_url=stack.redis_url, archive_url=archive_url)  # type: ignore[arg-type]
    report = await forget_player(settings, GAME, "mira")
    assert report.code == 0, report.lines
    return report.lines


async def _answers(stack: Stack) -> list[bytes]:
    routes = await read_routes(stack.http, GAME)
    frame = await live_first_frame(stack.assembled.hub, GAME)
    return [body for _, body in routes.values()] + [(frame or "").encode()]


def _tiers(stack: Stack, archive_url: str) -> dict[str, list[bytes]]:
    return {
        "redis": [v for v in redis_values(stack.redis_url) if NAME in v],
        "archive": [v for v in every_archived_byte(archive_url) if NAME in v],
    }


async def _nowhere(stack: Stack, archive_url: str) -> None:
    """No tier (Redis, the archive) holds the name, and no answer (every read route, the live
    frame) shows it."""
    assert _tiers(stack, archive_url) == {"redis": [], "archive": []}
    assert [a for a in await _answers(stack) if NAME in a] == []


def _reported(lines: tuple[str, ...], tier: str, how: str) -> None:
    """`forget`'s report: mira forgotten in `tier` (`how`: what was done there, then the
    standings and view rendered again), the kept webhook bodies scrubbed, then the copies."""
    assert lines[0] == (
        f"forgot mira of game pen-demo-3p in {tier} and the webhook deliveries kept:"
        " shown as player-1"
    )
    assert lines[1:] == (
        f"{how}; standings and view rendered again at seq {SEQ}",
        f"the webhook deliveries kept: {KEPT_BODIES} kept bodies: the name replaced",
        COPIES,
    )


async def test_the_winner_forgotten_before_sealing_is_in_no_tier(
    stack: Stack, archive_url: str
) -> None:
    assert _tiers(stack, archive_url)["redis"]  # the check can fail: the name is there
    await _kept_webhooks(stack)
    assert (await stack.http.get(f"/games/{GAME}/standings")).json()["result"] == "Winner: Mira"
    lines = await _forget(stack, archive_url)
    _reported(lines, "Redis", "Redis: the name forgotten (the names HASH)")
    await _nowhere(stack, archive_url)
    assert (await stack.seal())["sealed"] == 1
    await _nowhere(stack, archive_url)
    standings = (await stack.http.get(f"/games/{GAME}/standings")).json()
    assert standings["result"] == "Winner: player-1"


async def test_the_winner_forgotten_after_sealing_is_in_no_tier(
    stack: Stack, archive_url: str
) -> None:
    await _kept_webhooks(stack)
    assert (await stack.seal())["sealed"] == 1
    assert _tiers(stack, archive_url)["archive"]  # the check can fail: the name is there
    lines = await _forget(stack, archive_url)
    _reported(lines, "the archive", "the archive: the copy stored again with the name forgotten")
    await _nowhere(stack, archive_url)
    standings = (await stack.http.get(f"/games/{GAME}/standings")).json()
    assert standings["result"] == "Winner: player-1"
