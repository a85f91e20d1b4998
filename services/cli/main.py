"""The `scoreledger` command line (typer + rich); entry point `services.cli.main:app`.

Commands: `score` (offline fold of a JSONL log), `serve` (run the services with uvicorn),
`publish` (send a JSONL log over HTTP), `export` (a game's log as JSONL), `release` (resume a
held game), `demo` (everything, end to end, on a throwaway Redis). Each command is thin; the work lives in sibling modules.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from services.cli.offline import LogLineError, score_file, standings_summary
from services.cli.render import standings_table
from services.usecases.readmodels.views import standings_view

if TYPE_CHECKING:  # the network stack (httpx, redis, settings) loads in the commands that use it
    from rich.progress import Progress

    from services.cli.demo import DemoReport
    from services.cli.startup import StartupFailure
    from services.settings import CommonSettings

app = typer.Typer(
    name="scoreledger",
    help="Live, event-sourced scoring for Trickerion and Penumbra.",
    no_args_is_help=True,
)
out = Console()
err = Console(stderr=True)


@app.callback()
def main() -> None:
    """Live, event-sourced scoring for Trickerion and Penumbra on Redis Streams."""


LogFile = Annotated[
    Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="JSONL event log")
]


@app.command()
def score(
    file: LogFile,
    as_json: Annotated[bool, typer.Option("--json", help="print the standings as JSON")] = False,
) -> None:
    """Fold a JSONL event log offline (pure domain) and print the standings.

    Exits 1 at the first bad line, naming its line number, rule and field (with `--json`: the
    object `{"line", "rule", "field", "message"}` on stdout).
    """
    try:
        result = score_file(file)
    except LogLineError as error:
        if as_json:
            typer.echo(json.dumps(error.to_dict(), ensure_ascii=False))
            raise typer.Exit(1) from None
        err.print(
            f"[red]{escape(str(file))}:[/red] {escape(str(error))}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(1) from None
    view = standings_view(result, "replay")
    if as_json:
        typer.echo(json.dumps(standings_summary(view), ensure_ascii=False))
    else:
        out.print(standings_table(view))


RedisUrl = Annotated[
    str | None,
    typer.Option("--redis-url", help="Redis URL (default: SCORELEDGER_REDIS_URL / REDIS_URL)"),
]


def _settings(redis_url: str | None) -> CommonSettings:
    from services.settings import CommonSettings

    return CommonSettings(redis_url=redis_url) if redis_url else CommonSettings()


@app.command()
def export(
    game: Annotated[str, typer.Argument(help="game id")],
    out_file: Annotated[
        Path | None, typer.Option("--out", help="write here instead of stdout")
    ] = None,
    redis_url: RedisUrl = None,
) -> None:
    """Write a game's log as JSONL, exactly as stored; `score` and `publish` read it back."""
    from redis.exceptions import RedisError

    from services.cli.remote import GameNotStored, export_game

    try:
        import asyncio  # here, not at the top: `score` and `--help` never load the event loop

        text = asyncio.run(export_game(_settings(redis_url), game))
    except GameNotStored as error:
        err.print(escape(str(error)), highlight=False)
        raise typer.Exit(1) from None
    except (RedisError, OSError) as error:
        err.print(f"Redis unreachable: {escape(str(error))}", highlight=False)
        raise typer.Exit(1) from None
    if out_file is None:
        typer.echo(text, nl=False)
    else:
        out_file.write_text(text, encoding="utf-8")
        err.print(f"wrote {text.count(chr(10))} events to {escape(str(out_file))}", highlight=False)


@app.command()
def release(
    game: Annotated[str, typer.Argument(help="game id")],
    wait: Annotated[
        float, typer.Option("--wait", min=0, help="seconds to wait for the projector")
    ] = 10.0,
    redis_url: RedisUrl = None,
) -> None:
    """Resume a game the projector holds (a feed entry its rules refused), after a referee's
    void or correction has been appended: its log is refolded; if it folds, the hold is cleared
    and the projector refolds the game from the log. Exits 1 when it still does not fold
    (the game stays held; the rule is printed)."""
    import asyncio

    from redis.exceptions import RedisError

    from services.cli.release import release_game

    try:
        report = asyncio.run(release_game(_settings(redis_url), game, wait))
    except (RedisError, OSError) as error:
        err.print(f"Redis unreachable: {escape(str(error))}", highlight=False)
        raise typer.Exit(1) from None
    for line in report.lines:
        (out if report.code == 0 else err).print(escape(line), highlight=False, soft_wrap=True)
    raise typer.Exit(report.code)


@app.command()
def publish(
    file: LogFile,
    url: Annotated[
        str, typer.Option("--url", help="the ingest service's base URL")
    ] = "http://127.0.0.1:8000",
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
        load_tokens,
        publish_events,
        read_log,
        save_tokens,
        tokens_path,
    )

    try:
        events = read_log(file)
    except LogLineError as error:
        err.print(
            f"[red]{escape(str(file))}:[/red] {escape(str(error))}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(1) from None
    path = tokens_file or tokens_path(file)
    tokens = load_tokens(path)
    given = {events[0].game_id: token} if token and events else {}
    fresh = choose_tokens(events, {**tokens, **given})
    if given or fresh:  # a token given with --token replaces a saved one (e.g. a refused guess)
        tokens.update(given)
        tokens.update(fresh)
        save_tokens(path, tokens)
        for game_id, game_token in fresh.items():
            err.print(
                f"write token of {game_id}: {game_token}  (saved to {escape(str(path))})",
                highlight=False,
            )

    async def send(progress: Progress) -> int:
        task = progress.add_task("publishing", total=len(events))
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            publisher = Publisher(client, dict(tokens))
            return await publish_events(
                publisher, events, batch, lambda b: progress.advance(task, len(b))
            )

    start = time.perf_counter()
    try:
        import asyncio

        with _progress() as progress:
            sent = asyncio.run(send(progress))
    except PublishError as error:
        err.print(escape(str(error)), highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except httpx.HTTPError as error:
        err.print(f"cannot reach {escape(url)}: {escape(str(error))}", highlight=False)
        raise typer.Exit(1) from None
    elapsed = time.perf_counter() - start
    err.print(
        f"published {sent} events in {elapsed:.2f} s ({sent / elapsed:.0f} events/s)",
        highlight=False,
    )


@app.command()
def serve(
    ingest: Annotated[bool, typer.Option("--ingest/--no-ingest", help="HTTP appends")] = True,
    inbox: Annotated[
        bool, typer.Option("--inbox/--no-inbox", help="the Redis inbox consumer")
    ] = True,
    projector: Annotated[
        bool, typer.Option("--projector/--no-projector", help="feeds -> projections")
    ] = True,
    query: Annotated[
        bool, typer.Option("--query/--no-query", help="standings, replay, audit, push")
    ] = True,
    host: Annotated[
        str | None, typer.Option(help="bind address (default: SCORELEDGER_HOST)")
    ] = None,
    port: Annotated[int | None, typer.Option(help="port (default: SCORELEDGER_PORT)")] = None,
    redis_url: RedisUrl = None,
) -> None:
    """Run the services with uvicorn: all together (development) or one role each (deployment).

    Every mix serves /healthz, /readyz and /metrics. Before any role starts, Redis is sent one
    PING as the role's user: a failure prints one line and exits 69 (Redis unreachable), 77
    (credentials refused), 78 (bad settings); a role failing later in its start-up exits 70.
    """
    from pydantic import ValidationError

    from services.cli.startup import (
        EXIT_SOFTWARE,
        LifespanGuard,
        StartupFailure,
        check_port,
        check_redis,
        settings_failure,
    )
    from services.logging import configure_logging
    from services.settings import QuerySettings

    if not (ingest or inbox or projector or query):
        err.print("nothing to run: enable at least one of --ingest, --inbox, --projector, --query")
        raise typer.Exit(2)
    overrides: dict[str, Any] = {"redis_url": redis_url} if redis_url else {}
    try:
        settings = QuerySettings(**overrides)
        configure_logging(settings.log_format, settings.log_level)
        check_redis(settings)  # before the web stack is imported: a failure shows sooner
        from services.cli.serve import Roles, build_app, uvicorn_server

        roles = Roles(ingest=ingest, inbox=inbox, projector=projector, query=query)
        guard = LifespanGuard(build_app(roles, overrides), settings)
        server = uvicorn_server(
            guard,
            host or settings.host,
            settings.port if port is None else port,
            access_log=settings.access_log,
        )
        check_port(server.config.host, server.config.port)  # a taken port: one line, exit 70
    except (StartupFailure, ValidationError) as error:
        _startup_failed(error if isinstance(error, StartupFailure) else settings_failure(error))
    err.print(
        f"serving {', '.join(roles.names())} on http://{server.config.host}:{server.config.port}",
        highlight=False,
    )
    from services.gctune import tune_for_long_life

    tune_for_long_life()  # after the app is built: its objects are frozen
    try:
        server.run()
    except SystemExit as stop:  # uvicorn exits 3 when the lifespan or the bind fails
        if stop.code != 3:
            raise
        where = f"{server.config.host}:{server.config.port}"
        _startup_failed(guard.failure or StartupFailure(f"cannot listen on {where}", EXIT_SOFTWARE))


def _startup_failed(failure: StartupFailure) -> NoReturn:
    """One line on stderr (`scoreledger serve: ...`) and the failure's exit code."""
    typer.echo(f"scoreledger serve: {failure.message}", err=True)
    raise typer.Exit(failure.code)


@app.command()
def demo(
    examples: Annotated[
        Path | None,
        typer.Option(
            "--examples", file_okay=False, exists=True, help="a directory of *.jsonl logs"
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="final standings as JSON lines (the score --json shape)")
    ] = False,
    keep_running: Annotated[
        bool, typer.Option("--keep-running", help="keep serving after the demo (Ctrl-C stops)")
    ] = False,
    cluster: Annotated[
        bool,
        typer.Option(
            "--cluster", help="without REDIS_URL: a throwaway 3-master Redis Cluster, not one node"
        ),
    ] = False,
) -> None:
    """Run everything on this machine: Redis (REDIS_URL, or a throwaway redis-server, or with
    `--cluster` a throwaway 3-master Redis Cluster), ingest, projector and query in-process;
    publish the example games over HTTP with live standings; end with final standings checked
    against `scoreledger score` and the measured events/s."""
    from services.cli.demo import example_logs, load_games, run_demo
    from services.cli.localredis import NoRedis, demo_redis
    from services.cli.remote import PublishError
    from services.logging import configure_logging
    from services.settings import CommonSettings

    console = err if as_json else out
    settings = CommonSettings()
    configure_logging(settings.log_format, "WARNING")  # the Live view owns the terminal
    configured = (
        settings.redis_url if "redis_url" in settings.model_fields_set else None
    )  # set in the env
    logs = example_logs(examples)
    if not logs:
        err.print("no example logs (*.jsonl) found; pass --examples DIR")
        raise typer.Exit(1)
    try:
        with demo_redis(configured, cluster=settings.redis_cluster, start_cluster=cluster) as redis:
            where = "REDIS_URL"
            if redis.throwaway:
                where = (
                    "a throwaway 3-master Redis Cluster" if cluster else "a throwaway redis-server"
                )
            console.print(
                f"Redis: {redis.url} ({where}); {len(logs)} example games from {logs[0].parent}",
                highlight=False,
            )
            games = load_games(logs, None if redis.throwaway else uuid.uuid4().hex[:6])
            show = functools.partial(_show_demo_report, console=console, as_json=as_json)
            import asyncio

            report = asyncio.run(
                run_demo(redis.url, games, console, keep_running, show, redis.cluster)
            )
    except NoRedis as error:
        err.print(escape(str(error)), highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except (LogLineError, PublishError, TimeoutError, RuntimeError) as error:
        err.print(f"demo failed: {escape(str(error))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if not keep_running:
        _show_demo_report(report, console, as_json)
        console.print(
            "To watch the scoreboard: run `scoreledger demo --keep-running` and open the URL it "
            "prints, or `scoreledger serve` and browse http://127.0.0.1:8000/ (scoreboard), "
            "/docs (the API), /games/<id>/standings, /metrics",
            highlight=False,
        )
    if report.mismatches:
        err.print(f"standings differ from the offline fold for: {', '.join(report.mismatches)}")
        raise typer.Exit(1)


def _show_demo_report(report: DemoReport, console: Console, as_json: bool) -> None:
    """The demo's final standings (each checked against the offline fold) and its events/s."""
    console.print("\n[bold]Final standings[/bold] (read from the query API)")
    for game in report.games:
        assert game.final is not None
        console.print(standings_table(game.final))
        verdict = "[green]equals[/green]" if game.matches() else "[red]DIFFERS from[/red]"
        console.print(f"{verdict} `scoreledger score {escape(str(game.path))}`\n", highlight=False)
        if as_json:
            typer.echo(json.dumps(standings_summary(game.final), ensure_ascii=False))
    console.print(
        f"{report.events} events published one by one over HTTP in {report.publish_s:.2f} s "
        f"({report.events / report.publish_s:.0f} events/s); "
        f"all projected after {report.projected_s:.2f} s "
        f"({report.events / report.projected_s:.0f} events/s end to end)",
        highlight=False,
    )


def _progress() -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    )


app.command("simulate")(
    __import__("services.simulator.cli", fromlist=["simulate"]).simulate
)  # simulator owner

if __name__ == "__main__":  # pragma: no cover
    app()
