"""The CLI's network side: `export` (read a game's log from Redis) and `publish` (send a JSONL
log to a running ingest over HTTP, in batches)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from contracts.envelope import Envelope
from contracts.events import dump_event_json
from services.cli.offline import parse_lines
from services.platform.settings import CommonSettings


class GameNotStored(LookupError):
    """`export` of a game id with no events."""


async def export_game(settings: CommonSettings, game_id: str) -> str:
    """The game's log as JSONL, byte for byte as stored (the `events_jsonl` read model: the
    stored events, names put back into the start event, a forgotten player's pseudonym; from
    the archive `settings.archive_url` when Redis no longer holds the game).

    Raises:
        GameNotStored: the game has no events.
        redis.exceptions.ConnectionError: Redis is unreachable.
    """
    from services.bootstrap import build  # lazy: `score` must not import the services
    from services.platform.settings import ServiceSettings
    from services.usecases.readmodels.reads import NotFound

    service = build(
        ServiceSettings(
            redis_url=settings.redis_url, shards=settings.shards, archive_url=settings.archive_url
        )
    )
    try:
        return await service.cases.reads.events_jsonl_text(game_id)
    except NotFound:
        from services.cli.startup import masked  # the URL may hold a password

        raise GameNotStored(f"no game {game_id!r} in {masked(settings.redis_url)}") from None
    finally:
        if service.ports.archive is not None:
            await service.ports.archive.close()
        await service.client.aclose()


@dataclass(frozen=True)
class PublishError(Exception):
    """The ingest refused a batch: HTTP status and its body (rule/field when a rule was broken)."""

    status: int
    body: str
    first_seq: int
    game_id: str = ""

    def __str__(self) -> str:
        return f"ingest answered {self.status} for the batch from seq {self.first_seq}: {self.body}"


def read_log(path: Path) -> list[Envelope]:
    """All events of a JSONL log (see `services.cli.offline.parse_lines` for errors)."""
    with path.open(encoding="utf-8-sig") as handle:  # a BOM from Windows editors is not data
        return [event for _, event in parse_lines(handle)]


def batches(events: Sequence[Envelope], size: int) -> list[list[Envelope]]:
    """Consecutive runs of at most `size` events of one game (a batch never spans two games)."""
    out: list[list[Envelope]] = []
    for event in events:
        if out and len(out[-1]) < size and out[-1][-1].game_id == event.game_id:
            out[-1].append(event)
        else:
            out.append([event])
    return out


def batch_body(batch: Sequence[Envelope]) -> str:
    """The POST body of one batch: a JSON array of envelopes in their wire format."""
    return "[" + ",".join(dump_event_json(e) for e in batch) + "]"


def tokens_path(log: Path) -> Path:
    """Where `publish` keeps the write tokens of a log's games: `<log>.tokens.json` beside it."""
    return log.with_name(log.name + ".tokens.json")


def load_tokens(path: Path) -> dict[str, str]:
    """The saved tokens (`{game_id: token}`), empty when the file does not exist."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in data.items()}


def save_tokens(path: Path, tokens: dict[str, str]) -> None:
    """Write `tokens` to `path` (owner-only permissions), replacing it atomically."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(tokens, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.chmod(0o600)
    tmp.replace(path)


def choose_tokens(events: Sequence[Envelope], tokens: dict[str, str]) -> dict[str, str]:
    """A fresh write token (32 random bytes, URL-safe) for each game `events` create (its
    first event here is seq 1) that has none in `tokens`; returns only the new ones (the caller
    saves them before sending). A game the log only continues gets none: it exists already
    with a token of its own, which a random one could never be."""
    fresh: dict[str, str] = {}
    seen: set[str] = set()
    for event in events:
        if event.game_id in seen:
            continue
        seen.add(event.game_id)
        if event.game_id not in tokens and event.seq == 1:
            fresh[event.game_id] = secrets.token_urlsafe(32)
    return fresh


def forget_token(path: Path, game_id: str, existed: bool) -> None:
    """Remove `game_id`'s token from the tokens file at `path` (a chosen token the service
    refused: the game exists with another); the file goes too if `publish` created it and it
    is left empty."""
    tokens = load_tokens(path)
    tokens.pop(game_id, None)
    if tokens or existed:
        save_tokens(path, tokens)
    else:
        path.unlink(missing_ok=True)


@dataclass
class Publisher:
    """POSTs batches to `/games/{game_id}/events` with each game's write token.

    Every request sends `Authorization: Bearer <token>`; for a game the log creates, that is the
    token `publish` chose and saved before sending (services/usecases/authorize.py), so a
    retry after a lost answer is safe. A token the service generated (none sent) is kept too.
    """

    client: httpx.AsyncClient
    tokens: dict[str, str] = field(default_factory=dict)

    async def post(self, batch: Sequence[Envelope]) -> dict[str, Any]:
        """Send one batch (one game's consecutive events); return the 2xx JSON body.

        Raises:
            PublishError: the ingest refused the batch (4xx/5xx).
            httpx.HTTPError: the service is unreachable.
        """
        game_id = batch[0].game_id
        headers = {"content-type": "application/json"}
        if game_id in self.tokens:
            headers["authorization"] = f"Bearer {self.tokens[game_id]}"
        response = await self.client.post(
            f"/games/{game_id}/events", content=batch_body(batch), headers=headers
        )
        if response.status_code >= 300:
            raise PublishError(response.status_code, response.text, batch[0].seq, game_id)
        body: dict[str, Any] = response.json()
        if isinstance(body.get("write_token"), str):
            self.tokens[game_id] = body["write_token"]
        return body


async def post_batch(
    client: httpx.AsyncClient, tokens: dict[str, str], batch: Sequence[Envelope]
) -> dict[str, Any]:
    """`Publisher(client, tokens).post(batch)`: one batch with the games' `tokens` (kept up to
    date). Raises: PublishError, httpx.HTTPError: as `Publisher.post`."""
    return await Publisher(client, tokens).post(batch)


async def publish_events(
    publisher: Publisher,
    events: Sequence[Envelope],
    batch_size: int,
    on_batch: Callable[[list[Envelope]], None] = lambda _: None,
) -> tuple[int, int]:
    """POST `events` in order, in batches of at most `batch_size` events of one game; returns
    (events sent, of them already stored: the service answered `duplicate`, so a re-run adds
    nothing).

    Raises:
        PublishError: a batch was refused (nothing after it is sent).
        httpx.HTTPError: the service is unreachable.
    """
    sent = duplicates = 0
    for batch in batches(events, batch_size):
        body = await publisher.post(batch)
        sent += len(batch)
        duplicates += sum(1 for item in body.get("appended", ()) if item.get("duplicate"))
        on_batch(batch)
    return sent, duplicates
