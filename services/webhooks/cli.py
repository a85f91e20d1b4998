"""`scoreledger webhooks ...`: the operator's commands for outbound webhooks (the use case
`services.webhooks.usecases.admin.WebhookAdmin`, built by the composition root that the
command line hands over: `services.cli.root.CommandRoot`).

A refused request (a bad URL, unknown event types, an unknown endpoint or delivery) prints its
rule and exits 1; so does an unreachable Redis.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from services.platform.terminal import err, out

PIPED_WIDTH = 240
"""Columns of a table written to a pipe or file (rich assumes 80 and would cut ids and times)."""


def _table_out() -> Console:
    """Standard output for a table: the terminal's width, or `PIPED_WIDTH` columns when it is
    not a terminal."""
    return out if out.is_terminal else Console(width=PIPED_WIDTH)


if TYPE_CHECKING:
    from services.webhooks.usecases.admin import WebhookAdmin

webhooks_app = typer.Typer(
    name="webhooks",
    help="Signed outbound webhooks (Standard Webhooks 1.0): endpoints, secrets, the delivery log.",
    no_args_is_help=True,
)

T = TypeVar("T")
RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url",
        help="Redis URL (default: SCORELEDGER_REDIS_URL / REDIS_URL, else a running demo's)",
    ),
]
Url = Annotated[str, typer.Argument(help="the endpoint's URL")]


class AdminRoot(Protocol):
    """What these commands need of the composition root (`services.cli.root.CommandRoot`)."""

    def on_webhook_admin(
        self, redis_url: str | None, work: Callable[[WebhookAdmin], Awaitable[T]]
    ) -> T:
        """Run `work` on the operator's use case (Redis away: exits as `serve` does)."""


def _run(
    ctx: typer.Context, redis_url: str | None, work: Callable[[WebhookAdmin], Awaitable[T]]
) -> T:
    """Run `work` on the operator's use case, built by the root the command line hands over
    (`ctx.obj`). A refusal: its rule in one line, exit 1; Redis away, a refused user or a bad
    setting: one line and 69, 77 or 78, as every command that talks to Redis."""
    from services.webhooks.usecases.admin import WebhookRefused

    root: AdminRoot = ctx.obj
    try:
        return root.on_webhook_admin(redis_url, work)
    except WebhookRefused as refused:
        err.print(f"{refused.rule}: {escape(str(refused))}", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


@webhooks_app.command()
def add(
    ctx: typer.Context,
    url: Url,
    game: Annotated[
        str | None, typer.Option("--game", help="only this game (default: every game)")
    ] = None,
    events: Annotated[
        list[str] | None,
        typer.Option(
            "--events",
            help="event types, comma-separated or repeated (default: all): game.started, "
            "standings.changed, game.ended, event.voided, score.corrected",
        ),
    ] = None,
    redis_url: RedisUrl = None,
) -> None:
    """Add an endpoint and print its signing secret (shown once; `list` masks it)."""
    from services.webhooks.usecases.admin import masked_url

    kinds = [k.strip() for item in events or [] for k in item.split(",") if k.strip()]
    endpoint = _run(ctx, redis_url, lambda admin: admin.add(url, game, kinds))
    out.print(f"added {escape(masked_url(endpoint.url))} ({endpoint.id})", highlight=False)
    out.print(f"secret: {endpoint.secrets[0].value}", highlight=False, soft_wrap=True)


@webhooks_app.command("list")
def list_endpoints(ctx: typer.Context, redis_url: RedisUrl = None) -> None:
    """The endpoints with their games, event types, secrets (masked), queue and drops; a URL's
    credentials (`user:password@`) masked too."""
    from services.webhooks.usecases.admin import masked_url

    table = Table("url", "game", "events", "secrets", "queued", "dropped")
    for endpoint, depth, dropped in _run(ctx, redis_url, lambda admin: admin.overview()):
        secrets = ", ".join(
            f"{s.value[:10]}… (until {_when(s.expires_ms)})" if s.expires_ms else f"{s.value[:10]}…"
            for s in endpoint.secrets
        )
        table.add_row(
            escape(masked_url(endpoint.url)),
            endpoint.game_id or "all",
            ", ".join(endpoint.events) or "all",
            secrets,
            str(depth),
            str(dropped),
        )
    _table_out().print(table)


@webhooks_app.command()
def remove(ctx: typer.Context, url: Url, redis_url: RedisUrl = None) -> None:
    """Remove an endpoint with its queue and delivery log."""
    from services.webhooks.usecases.admin import masked_url

    _run(ctx, redis_url, lambda admin: admin.remove(url))
    out.print(f"removed {escape(masked_url(url))}", highlight=False)


@webhooks_app.command("rotate-secret")
def rotate_secret(
    ctx: typer.Context,
    url: Url,
    window: Annotated[
        float | None,
        typer.Option(
            "--window",
            min=0,
            help="seconds the old secret keeps signing (default: SCORELEDGER_WEBHOOK_ROTATION_WINDOW_S)",
        ),
    ] = None,
    redis_url: RedisUrl = None,
) -> None:
    """A new signing secret; the old one keeps signing (both signatures sent) for the window."""
    from services.platform.settings import WebhookSettings

    window_s = WebhookSettings().webhook_rotation_window_s if window is None else window
    rotated = _run(ctx, redis_url, lambda admin: admin.rotate(url, window_s))
    out.print(f"secret: {rotated.secrets[0].value}", highlight=False, soft_wrap=True)
    for old in rotated.secrets[1:]:
        out.print(f"old {old.value[:10]}… signs until {_when(old.expires_ms)}", highlight=False)


@webhooks_app.command("test")
def send_test(ctx: typer.Context, url: Url, redis_url: RedisUrl = None) -> None:
    """Send a `webhook.test` event now (one attempt) and print the answer; exit 1 unless 2xx."""
    result = _run(ctx, redis_url, lambda admin: admin.test(url))
    entry = result.entry
    said = f"HTTP {entry.http_status}" if entry.http_status is not None else result.error
    out.print(f"{entry.status}: {escape(str(said))} (webhook-id {entry.delivery.id})")
    if entry.status != "delivered":
        raise typer.Exit(1)


@webhooks_app.command()
def deliveries(
    ctx: typer.Context,
    url: Url,
    limit: Annotated[int, typer.Option("--limit", min=1, max=10_000)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object a line")] = False,
    redis_url: RedisUrl = None,
) -> None:
    """The endpoint's delivery log, newest first (pending first): id, type, game, status,
    attempts, last HTTP status and error."""
    entries = _run(ctx, redis_url, lambda admin: admin.deliveries(url, limit))
    if as_json:
        for e in entries:
            d = e.delivery
            line = {
                "id": d.id,
                "type": d.type,
                "game_id": d.game_id,
                "status": e.status,
                "attempts": d.attempts,
                "http_status": e.http_status,
                "last_error": d.last_error,
                "at": _when(e.at_ms),
            }
            typer.echo(json.dumps(line))
        return
    table = Table("at", "id", "type", "game", "status", "attempts", "http", "last error")
    for e in entries:
        d = e.delivery
        table.add_row(
            _when(e.at_ms),
            d.id,
            d.type,
            d.game_id or "-",
            e.status,
            str(d.attempts),
            str(e.http_status or "-"),
            escape(d.last_error or ""),
        )
    _table_out().print(table)


@webhooks_app.command()
def replay(
    ctx: typer.Context,
    delivery_id: Annotated[str, typer.Argument(help="a delivery id (webhook-id) from the log")],
    redis_url: RedisUrl = None,
) -> None:
    """Queue a logged delivery again under the same webhook-id; the running webhooks role
    (`serve --webhooks`) sends it."""
    again = _run(ctx, redis_url, lambda admin: admin.replay(delivery_id))
    out.print(f"queued {again.id} ({again.type}) again", highlight=False)
