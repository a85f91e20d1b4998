"""The `scoreledger` command line (typer + rich); entry point `services.cli.main:app`.

Commands: `score` (offline fold of a JSONL log), `serve` (run the services with uvicorn),
`publish` (send a JSONL log over HTTP), `export` (a game's log as JSONL), `release` (resume a
held game), `forget` (a player's name, in every tier), `demo` (everything, end to end, on a
throwaway Redis), `simulate`; and the features' command groups (`FEATURE_COMMANDS`:
`webhooks`, `league`, `tournament`), each in its feature package, handed the composition root
(`services.cli.root.CommandRoot`) as the context's object. Each command is thin; the work
lives in sibling modules (`publish_command.py` and `demo_command.py` hold those
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
from services.cli.root import CommandRoot
from services.leagues.cli import league_app
from services.platform.terminal import LogFile, err, out
from services.tournaments.cli.simulate import tournament_app
from services.usecases.readmodels.render import view as standings_view
from services.webhooks.cli import webhooks_app

if TYPE_CHECKING:  # the network stack (httpx, redis, settings) loads in the commands that use it
    from services.platform.settings import CommonSettings

app = typer.Typer(
    name="scoreledger",
    help="Live, event-sourced scoring for Trickerion and Penumbra.",
    no_args_is_help=True,
)


@app.callback()
def main(ctx: typer.Context) -> None:
    """Live, event-sourced scoring for Trickerion and Penumbra on Redis Streams."""
    ctx.obj = CommandRoot()  # what the features' commands build through


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
    typer.Option(
        "--redis-url",
        help="Redis URL (default: SCORELEDGER_REDIS_URL / REDIS_URL, else a running demo's)",
    ),
]


def _settings(command: str, redis_url: str | None) -> CommonSettings:
    """The settings of a command talking to Redis (`--redis-url` over the environment over a
    running demo's, `services.cli.demo_state`); a bad one exits 78 naming it
    (`services.cli.on_redis`)."""
    from services.cli.demo_state import redis_overrides
    from services.cli.on_redis import settings_or_exit
    from services.platform.settings import CommonSettings

    overrides = redis_overrides(redis_url)
    return settings_or_exit(command, lambda: CommonSettings(**overrides))


@app.command()
def export(
    game: Annotated[str, typer.Argument(help="game id")],
    out_file: Annotated[
        Path | None, typer.Option("--out", help="write here instead of stdout")
    ] = None,
    redis_url: RedisUrl = None,
) -> None:
    """Write a game's log as JSONL, as stored (each event as posted, with the contract's
    defaults filled in and `recorded_at` set); `score` and `publish` read it back.

    Exits 1 for a game with no events; 69, 77 or 78 with one line as `serve` does when Redis
    cannot be reached, refuses the user, or a setting is bad."""
    from services.cli.on_redis import run_on_redis
    from services.cli.remote import GameNotStored, export_game

    settings = _settings("export", redis_url)
    try:
        text = run_on_redis("export", settings, lambda: export_game(settings, game))
    except GameNotStored as error:
        typer.echo(f"scoreledger export: {error}", err=True)
        raise typer.Exit(1) from None
    if out_file is None:
        typer.echo(text, nl=False)
    else:
        out_file.write_text(text, encoding="utf-8")
        err.print(f"wrote {text.count(chr(10))} events to {escape(str(out_file))}", highlight=False)


@app.command("migrate-archive")
def migrate_archive() -> None:
    """Bring the archive's schema up to date (SCORELEDGER_ARCHIVE_URL, as the schema's owner)
    and exit: a deployment's one-shot step before the archiver and the readers, whose roles
    may not run DDL. Exits 78 without an archive URL, 1 when it cannot be opened."""
    import asyncio

    from services.bootstrap import open_archive
    from services.platform.settings import ServiceSettings

    settings = ServiceSettings()
    if settings.archive_url is None:
        err.print("migrate-archive needs SCORELEDGER_ARCHIVE_URL (postgresql://... or file:///dir)")
        raise typer.Exit(78)

    async def migrate() -> None:
        archive = await open_archive(settings)
        if archive is not None:
            await archive.close()

    try:
        asyncio.run(migrate())
    except Exception as error:  # unreachable, refused, a failed step: one line, exit 1
        err.print(f"migrate-archive: {escape(str(error)[:300])}", highlight=False)
        raise typer.Exit(1) from None
    err.print("the archive's schema is current", highlight=False)


@app.command()
def forget(
    game: Annotated[str, typer.Argument(help="game id (with --tournament: tournament id)")],
    player: Annotated[str, typer.Argument(help="the player's id (as in the game's start event)")],
    tournament: Annotated[
        bool,
        typer.Option(
            "--tournament",
            help="GAME is a tournament id: forget its player there, in all its table games"
            " and in the leagues that added them (a registrant who played no game too; a judge"
            " the tournament appointed is shown as judge-<n> there)",
        ),
    ] = False,
    redis_url: RedisUrl = None,
) -> None:
    """Forget a player's name (an operator's command): every answer and export shows
    `player-<seat>` instead, in Redis and in the archive (SCORELEDGER_ARCHIVE_URL), and
    `player-<n>` in the game's tournament, its other table games and the leagues that added
    them; scores, ranks and what the events say are unchanged. Idempotent. Exits 1 for an
    unknown game, tournament or player; 69, 77 or 78 with one line as `serve` does."""
    from services.cli.forget import forget_player, forget_tournament_player
    from services.cli.on_redis import run_on_redis

    settings = _settings("forget", redis_url)
    work = forget_tournament_player if tournament else forget_player
    report = run_on_redis("forget", settings, lambda: work(settings, game, player))
    _exit_with(report.code, report.lines)


def _exit_with(code: int, lines: tuple[str, ...]) -> NoReturn:
    """Print a command's report (stdout when `code` is 0, else stderr) and exit with `code`."""
    for line in lines:
        (out if code == 0 else err).print(escape(line), highlight=False, soft_wrap=True)
    raise typer.Exit(code)


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
    (the game stays held; the rule is printed); 69, 77 or 78 with one line as `serve` does."""
    from services.cli.on_redis import run_on_redis
    from services.cli.release import release_game

    settings = _settings("release", redis_url)
    report = run_on_redis("release", settings, lambda: release_game(settings, game, wait))
    _exit_with(report.code, report.lines)


@app.command("sweep-projections")
def sweep_projections(
    delete: Annotated[
        bool, typer.Option("--delete", help="delete the strays of archived games (else: list)")
    ] = False,
    redis_url: RedisUrl = None,
) -> None:
    """List projections left in Redis for games that live only in the archive (written back
    by a projector behind the archiver, before it skipped sealed games), and with --delete
    delete them so reads use the archive's. Exits 0 when none is left, 1 when some are kept
    (listed, locked, or with no archived copy), 78 without SCORELEDGER_ARCHIVE_URL; 69, 77 or
    78 with one line as `serve` does."""
    from services.cli.on_redis import run_on_redis
    from services.cli.strays import sweep_projections as sweep

    settings = _settings("sweep-projections", redis_url)
    report = run_on_redis("sweep-projections", settings, lambda: sweep(settings, delete))
    _exit_with(report.code, report.lines)


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
    archiver: Annotated[
        bool,
        typer.Option(
            "--archiver/--no-archiver",
            help="seal final games quiet for SCORELEDGER_ARCHIVE_AFTER_S into "
            "SCORELEDGER_ARCHIVE_URL (off by default: run one)",
        ),
    ] = False,
    webhooks: Annotated[
        bool,
        typer.Option(
            "--webhooks/--no-webhooks",
            help="signed outbound webhooks (off by default: run one per deployment)",
        ),
    ] = False,
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

    from services.cli.on_redis import fail
    from services.cli.startup import (
        EXIT_SOFTWARE,
        LifespanGuard,
        StartupFailure,
        check_port,
        check_redis,
        settings_failure,
    )
    from services.platform.logging import configure_logging
    from services.platform.settings import ServiceSettings

    if not (ingest or inbox or projector or query or archiver or webhooks):
        err.print(
            "nothing to run: enable at least one of --ingest, --inbox, --projector, --query,"
            " --archiver, --webhooks"
        )
        raise typer.Exit(2)
    overrides: dict[str, Any] = {"redis_url": redis_url} if redis_url else {}
    try:
        settings = ServiceSettings(**overrides)  # every role's, so a bad one exits 78 first
        configure_logging(settings.log_format, settings.log_level)
        check_redis(settings)  # before the web stack is imported: a failure shows sooner
        from services.cli.serve import Roles, build_app, uvicorn_server

        if archiver and settings.archive_url is None:
            err.print("--archiver needs SCORELEDGER_ARCHIVE_URL (postgresql://... or file:///dir)")
            raise typer.Exit(78)
        roles = Roles(
            ingest=ingest,
            inbox=inbox,
            projector=projector,
            query=query,
            archiver=archiver,
            webhooks=webhooks,
        )
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
        fail("serve", error if isinstance(error, StartupFailure) else settings_failure(error))
    err.print(
        f"serving {', '.join(roles.names())} on http://{server.config.host}:{server.config.port}",
        highlight=False,
    )
    from services.runtime.gctune import tune_for_long_life

    # after the app is built: its objects are frozen; a projector alone (as deployed) also
    # freezes survivors and pauses while catching up, with full collections beside it
    tune_for_long_life(survivors=roles.names() == ["projector"])
    try:
        server.run()
    except SystemExit as stop:  # uvicorn exits 3 when the lifespan or the bind fails
        if stop.code != 3:
            raise
        where = f"{server.config.host}:{server.config.port}"
        fail("serve", guard.failure or StartupFailure(f"cannot listen on {where}", EXIT_SOFTWARE))


FEATURE_COMMANDS: tuple[tuple[str, typer.Typer], ...] = (
    ("webhooks", webhooks_app),
    ("league", league_app),
    ("tournament", tournament_app),
)
"""The features' command groups (name, typer), in `--help`'s order: each lives in its feature
package (`services/<feature>/cli.py`) and reads the root from the context."""

app.command()(publish)
app.command()(demo)
for _group, _commands in FEATURE_COMMANDS:
    app.add_typer(_commands, name=_group)
app.command("simulate")(
    __import__("services.cli.simulate_command", fromlist=["simulate"]).simulate
)  # simulator owner

NEWCOMER_ORDER = {
    "demo": "Run everything on this machine and watch live standings (start here).",
    "score": "Fold a JSONL event log offline and print the standings.",
    "publish": "Send a JSONL log to a running service (a running demo by default).",
    "serve": "Run the services: all roles together, or one role each.",
    "export": "Write a game's log as JSONL, as stored (defaults filled in).",
    "release": "Resume a game the projector holds, after a referee's correction.",
    "forget": "Forget a player's name in every tier (an operator's command).",
    "simulate": "Generate rule-valid games (reproducible from --seed) and send or write them.",
    "migrate-archive": "Bring the archive's schema up to date and exit.",
    "sweep-projections": "List or delete projections left in Redis for archived games.",
}
"""`--help`'s command list: the order a newcomer needs them, each in one line (the exit codes
are in each command's own `--help`). Groups (`webhooks`, `league`, `tournament`) follow."""


def _name(info: Any) -> str:
    return str(info.name or info.callback.__name__.replace("_", "-"))


app.registered_commands.sort(key=lambda info: list(NEWCOMER_ORDER).index(_name(info)))
for _info in app.registered_commands:
    _info.short_help = NEWCOMER_ORDER[_name(_info)]

if __name__ == "__main__":  # pragma: no cover
    app()
