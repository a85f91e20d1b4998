"""`scoreledger demo`: the main job, end to end, on a throwaway Redis (or REDIS_URL)."""

from __future__ import annotations

import contextlib
import functools
import json
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from services.cli.offline import LogLineError, standings_summary
from services.cli.render import standings_table
from services.platform.terminal import err, out

if TYPE_CHECKING:  # the network stack loads when the command runs
    from services.cli.demo import DemoReport


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
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="bind address; 0.0.0.0: phones on this network too (QR codes encode this "
            "machine's network address)",
        ),
    ] = "127.0.0.1",
) -> None:
    """Run everything on this machine: Redis (REDIS_URL, or a throwaway redis-server, or with
    `--cluster` a throwaway 3-master Redis Cluster), ingest, projector and query in-process;
    publish the example games over HTTP with live standings; end with final standings checked
    against `scoreledger score` and the measured events/s."""
    from services.bootstrap import NoRedis, demo_redis
    from services.cli.demo import ARCHIVE_AFTER_S, run_demo
    from services.cli.demo_games import example_logs, load_games
    from services.cli.on_redis import settings_or_exit
    from services.cli.remote import PublishError
    from services.platform.lifetime import exit_on_sigterm, sigterm_deferred
    from services.platform.logging import configure_logging
    from services.platform.settings import CommonSettings

    exit_on_sigterm()  # a SIGTERM stops the throwaway Redis too (it unwinds the `with`)
    console = err if as_json else out
    settings = settings_or_exit("demo", CommonSettings)  # a bad setting: one line, exit 78
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

            # sigterm_deferred: uvicorn stops on it, then it unwinds from here
            with sigterm_deferred(), contextlib.ExitStack() as stack:
                archive_dir = None
                if settings.archive_url is None:  # the embedded default: a throwaway directory
                    archive_dir = Path(
                        stack.enter_context(tempfile.TemporaryDirectory(prefix="sl-archive-"))
                    )
                    console.print(
                        f"Archive: {archive_dir} (a throwaway directory; games are sealed "
                        f"there {ARCHIVE_AFTER_S:g} s after they end)",
                        highlight=False,
                    )
                report = asyncio.run(
                    run_demo(
                        redis.url,
                        games,
                        console,
                        keep_running,
                        show,
                        redis.cluster,
                        archive_dir,
                        host,
                    )
                )
    except NoRedis as error:
        err.print(escape(str(error)), highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except (LogLineError, PublishError, TimeoutError, RuntimeError) as error:  # and a refused
        # tournament step (TournamentStepFailed is a RuntimeError)
        err.print(f"demo failed: {escape(str(error))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if not keep_running:
        _show_demo_report(report, console, as_json)
        console.print(
            "The demo has stopped, and its pages with it. To keep it running: "
            "`.venv/bin/scoreledger demo --keep-running` (add `--host 0.0.0.0` for phones on "
            "this network); it prints the links to open: / (scoreboard), /tv, "
            "/tv/tournaments/demo-cup (the tournament's room screen), /docs (the API), "
            "/games/<id>/standings, /metrics",
            highlight=False,
            soft_wrap=True,
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
    for game_id, size in report.archived.items():
        console.print(
            f"archived: {game_id} left Redis for the archive ({size:,} bytes, gzip JSONL); its "
            "standings, read again from there, are the same",
            highlight=False,
        )
    if report.tournament_line:
        console.print(report.tournament_line, highlight=False, soft_wrap=True)
    console.print(
        f"{report.events} events published one by one over HTTP in {report.publish_s:.2f} s "
        f"({report.events / report.publish_s:.0f} events/s); "
        f"all projected after {report.projected_s:.2f} s "
        f"({report.events / report.projected_s:.0f} events/s end to end)",
        highlight=False,
    )
