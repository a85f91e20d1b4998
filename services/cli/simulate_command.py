"""`scoreledger simulate`: seeded tables to JSONL files, HTTP ingest or the Redis inbox.

Registered in `services/cli/main.py` with `app.command("simulate")(simulate)`; also runnable
alone as `python -m services.cli.simulate_command`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:  # the simulator, asyncio and rich.progress load when the command runs
    from services.simulator.tables import GameKind

err = Console(stderr=True)


def simulate(
    game: Annotated[str, typer.Option("--game", help="trickerion, penumbra or mixed")] = "mixed",
    tables: Annotated[int, typer.Option("--tables", min=1, help="concurrent tables (games)")] = 1,
    seed: Annotated[
        int, typer.Option("--seed", help="the run's seed; table k uses f'{seed}:{k}'")
    ] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", help="write one JSONL file per game here")
    ] = None,
    http: Annotated[str | None, typer.Option("--http", help="ingest base URL to POST to")] = None,
    inbox: Annotated[
        str | None, typer.Option("--inbox", help="Redis URL whose inbox stream to XADD to")
    ] = None,
    rate: Annotated[
        float, typer.Option("--rate", min=0.1, help="events per second offered (HTTP/inbox)")
    ] = 1000.0,
    batch: Annotated[
        int, typer.Option("--batch", min=1, max=1000, help="events per HTTP request")
    ] = 1,
    retry_for: Annotated[
        float,
        typer.Option(
            "--retry-for",
            min=0.0,
            help="HTTP: seconds to retry transient errors (dropped connections, 503...) per "
            "request before giving up with one line and exit 1",
        ),
    ] = 60.0,
) -> None:
    """Generate rule-valid games (reproducible from --seed) and send or write them."""
    import asyncio

    from services.cli.sinks import (  # httpx, redis: lazily
        TargetDown,
        send_http,
        send_inbox,
        write_jsonl,
    )
    from services.platform.terminal import progress_bar
    from services.simulator.tables import simulate_game, simulate_tables, simulated_games

    if game not in (*simulated_games(), "mixed"):
        raise typer.BadParameter(f"{', '.join(simulated_games())} or mixed", param_hint="--game")
    kind: GameKind = game  # type: ignore[assignment]
    if sum(x is not None for x in (out, http, inbox)) != 1:
        raise typer.BadParameter("give exactly one of --out, --http, --inbox")
    settings = None
    if inbox is not None:  # before the progress bar: a failure is one line, as for `serve`
        from services.cli.on_redis import check_or_exit, run_on_redis, settings_or_exit
        from services.platform.settings import CommonSettings

        settings = settings_or_exit("simulate", lambda: CommonSettings(redis_url=inbox))
        check_or_exit("simulate", settings)
    started = time.perf_counter()
    if out is not None:
        paths = write_jsonl((simulate_game(kind, seed, t) for t in range(tables)), out)
        err.print(f"wrote {len(paths)} game{'' if len(paths) == 1 else 's'} to {out}")
        return
    with progress_bar(err) as progress:
        task = progress.add_task("events sent", total=None)

        def advance(n: int) -> None:
            progress.advance(task, n)

        events = simulate_tables(kind, seed, tables)
        if http is not None:
            try:
                sent, errors = asyncio.run(
                    send_http(events, http, rate, batch, advance, retry_for_s=retry_for)
                )
            except TargetDown as down:
                progress.stop()
                err.print(f"scoreledger simulate: stopped: {down}", highlight=False, soft_wrap=True)
                raise typer.Exit(1) from None
        else:
            assert inbox is not None
            assert settings is not None
            work = lambda: send_inbox(events, inbox, rate, on_sent=advance)  # noqa: E731
            sent, errors = run_on_redis("simulate", settings, work, check=False), []
    elapsed = time.perf_counter() - started
    err.print(
        f"sent {sent} events from {tables} tables in {elapsed:.1f} s ({sent / elapsed:.0f} events/s)"
    )
    for line in errors[:20]:
        err.print(f"[red]refused[/red] {line}")
    if errors:
        raise typer.Exit(1)


app = typer.Typer(help="Simulated tables for Trickerion and Penumbra.")
app.command("simulate")(simulate)

if __name__ == "__main__":  # pragma: no cover
    app()
