"""The `scoreledger` command line (typer + rich); entry point `services.cli.main:app`.

Commands: `score` (offline fold of a JSONL log), `serve` (run the services with uvicorn),
`publish` (send a JSONL log over HTTP), `export` (a game's log as JSONL), `release` (resume a
held game), `demo` (everything, end to end, on a throwaway Redis), `simulate`. Each command is
thin; the work lives in sibling modules (`publish_command.py` and `demo_command.py` hold those
two commands whole).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.markup import escape

from services.cli.demo_command import demo
from services.cli.offline import LogLineError, score_file, standings_summary
from services.cli.publish_command import publish
from services.cli.render import standings_table
from services.cli.terminal import LogFile, err, out
from services.usecases.readmodels.views import standings_view

if TYPE_CHECKING:  # the network stack (httpx, redis, settings) loads in the commands that use it
    from services.cli.startup import StartupFailure
    from services.settings import CommonSettings

app = typer.Typer(
    name="scoreledger",
    help="Live, event-sourced scoring for Trickerion and Penumbra.",
    no_args_is_help=True,
)


@app.callback()
def main() -> None:
    """Live, event-sourced scoring for Trickerion and Penumbra on Redis Streams."""


@app.command()
def score(
    file: LogFile,
    as_json: Annotated[bool, typer.Option("--json", help="print the standings as JSON")] = False,
    at_seq: Annotated[
        int | None,
        typer.Option("--at-seq", min=1, help="replay: the standings just after this seq"),
    ] = None,
) -> None:
    """Fold a JSONL event log offline (pure domain) and print the standings (with `--at-seq`,
    as they stood after that event: later corrections and voids not yet counted).

    Exits 1 at the first bad line, naming its line number, rule and field (with `--json`: the
    object `{"line", "rule", "field", "message"}` on stdout), or for a seq the log lacks.
    """
    try:
        result = score_file(file, at_seq)
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
    from services.settings import ServiceSettings

    if not (ingest or inbox or projector or query):
        err.print("nothing to run: enable at least one of --ingest, --inbox, --projector, --query")
        raise typer.Exit(2)
    overrides: dict[str, Any] = {"redis_url": redis_url} if redis_url else {}
    try:
        settings = ServiceSettings(**overrides)  # every role's, so a bad one exits 78 first
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
            trusted_proxies=settings.trusted_proxies,
        )
        check_port(server.config.host, server.config.port)  # a taken port: one line, exit 70
    except (StartupFailure, ValidationError) as error:
        _startup_failed(error if isinstance(error, StartupFailure) else settings_failure(error))
    err.print(
        f"serving {', '.join(roles.names())} on http://{server.config.host}:{server.config.port}",
        highlight=False,
    )
    from services.gctune import tune_for_long_life

    # after the app is built: its objects are frozen; a projector alone (as deployed) also
    # freezes survivors and pauses while catching up, with full collections beside it
    tune_for_long_life(survivors=roles.names() == ["projector"])
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


app.command()(publish)
app.command()(demo)
app.command("simulate")(
    __import__("services.simulator.cli", fromlist=["simulate"]).simulate
)  # simulator owner

if __name__ == "__main__":  # pragma: no cover
    app()
