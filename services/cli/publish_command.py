"""`scoreledger publish`: send a JSONL log to a running ingest over HTTP, in batches."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from services.cli.offline import LogLineError
from services.platform.terminal import LogFile, err, progress_bar

if TYPE_CHECKING:  # httpx and rich.progress load when the command runs
    from rich.progress import Progress

URL = "http://127.0.0.1:8000"
"""Where `publish` sends without `--url` and no running demo: `serve`'s default address."""


def publish(
    file: LogFile,
    url: Annotated[
        str | None,
        typer.Option(
            "--url", help=f"the ingest service's base URL (default: a running demo's, else {URL})"
        ),
    ] = None,
    batch: Annotated[
        int, typer.Option("--batch", min=1, max=1000, help="events per POST (ingest takes 1-1000)")
    ] = 100,
    token: Annotated[
        str | None,
        typer.Option("--token", help="write token of an existing game (the file's only game)"),
    ] = None,
    tokens_file: Annotated[
        Path | None,
        typer.Option(
            "--tokens-file", help="where games' write tokens are kept (default: FILE.tokens.json)"
        ),
    ] = None,
) -> None:
    """Send a JSONL log to a running ingest (`POST /games/{id}/events`) in batches.

    A game the log creates gets a write token chosen here, saved to the tokens file and printed
    BEFORE anything is sent, so a lost answer never locks the game; later runs reuse it.
    """
    import httpx

    from services.cli.remote import (
        Publisher,
        PublishError,
        choose_tokens,
        forget_token,
        load_tokens,
        publish_events,
        read_log,
        save_tokens,
        tokens_path,
    )

    if url is None:
        from services.cli.demo_state import running_demo

        demo = running_demo()
        url = URL if demo is None else demo.url
        if demo is not None:
            err.print(f"publishing to the running demo at {url}", highlight=False)
    try:
        events = read_log(file)
    except LogLineError as error:
        err.print(
            f"[red]{escape(str(file))}:[/red] {escape(str(error))}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(1) from None
    path = tokens_file or tokens_path(file)
    existed = path.exists()
    tokens = load_tokens(path)
    given = {events[0].game_id: token} if token and events else {}
    fresh = choose_tokens(events, {**tokens, **given})
    if given or fresh:  # a token given with --token replaces a saved one (e.g. a refused guess)
        tokens.update(given)
        tokens.update(fresh)
        save_tokens(path, tokens)
        for game_id, game_token in fresh.items():
            err.print(
                f"write token chosen for {game_id}: {game_token}  (saved to "
                f"{escape(str(path))}; it is the game's if this log creates it, a game that "
                "exists already needs its own: --token)",
                highlight=False,
            )

    async def send(progress: Progress) -> tuple[int, int]:
        task = progress.add_task("publishing", total=len(events))
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            publisher = Publisher(client, dict(tokens))
            return await publish_events(
                publisher, events, batch, lambda b: progress.advance(task, len(b))
            )

    start = time.perf_counter()
    try:
        import asyncio

        with progress_bar() as progress:
            sent, duplicates = asyncio.run(send(progress))
    except PublishError as error:
        err.print(escape(str(error)), highlight=False, soft_wrap=True)
        if error.status in (401, 403) and error.game_id in fresh:
            # the game exists with a token of its own: the one chosen here is not kept
            forget_token(path, error.game_id, existed)
            err.print(
                f"{error.game_id} exists already with another write token: pass it with "
                f"--token; the token chosen for it is not kept in {escape(str(path))}",
                highlight=False,
                soft_wrap=True,
            )
        raise typer.Exit(1) from None
    except httpx.HTTPError as error:
        err.print(f"cannot reach {escape(url)}: {escape(str(error))}", highlight=False)
        raise typer.Exit(1) from None
    elapsed = time.perf_counter() - start
    stored = f", {duplicates} of them already stored (duplicates, not appended again)"
    err.print(
        f"published {sent} events in {elapsed:.2f} s ({sent / elapsed:.0f} events/s)"
        + (stored if duplicates else ""),
        highlight=False,
    )
