"""`scoreledger demo`: the whole pipeline on this machine, end to end.

Finds a Redis (`services.adapters.redis.localredis`), starts ingest, projector and query in-process under
uvicorn on a free port, publishes the bundled example games event by event through the real
HTTP ingest (round-robin across games) while a rich Live view shows the publishing progress and
the standings read back from the query API, waits until every game is projected, then prints
the final standings, checks each equals `scoreledger score` on the same file (the pure fold),
and reports the measured events/s. A small tournament is played beside the games
(`services.tournaments.cli.demo`); its room screen's URL is printed when the services are up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import structlog
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.cli.demo_games import COMPARED, DemoGame, round_robin
from services.cli.demo_state import DemoState, clear_state, phone_base, write_state
from services.cli.remote import Publisher, post_batch
from services.cli.render import standings_table
from services.cli.serve import Roles, build_app, uvicorn_server
from services.tournaments.cli.demo import DemoTournament
from services.usecases.readmodels.shapes import StandingsResponse

log = structlog.get_logger("demo")


@dataclass
class DemoReport:
    """What the demo measured: events sent, seconds publishing, seconds until all projected."""

    games: list[DemoGame]
    events: int
    publish_s: float
    projected_s: float
    url: str
    mismatches: list[str] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)
    """Each demo game's write token (so a newcomer can try the dispute form)."""
    archived: dict[str, int] = field(default_factory=dict)
    """Each game sealed into the demo's directory archive: its file's bytes."""
    tournament: DemoTournament | None = None
    """The small tournament played beside the games (`services.tournaments.cli.demo`)."""
    tournament_line: str = ""
    """Where it ended, in one line."""


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def fetch_standings(client: httpx.AsyncClient, game_id: str) -> StandingsResponse | None:
    """`GET /games/{id}/standings`, or None while the game is not projected yet (404/503)."""
    response = await client.get(f"/games/{game_id}/standings")
    if response.status_code != 200:
        return None
    return StandingsResponse.model_validate_json(response.content)


class LiveBoard:
    """The Live view: the publishing progress bar above the latest standings of each game."""

    def __init__(self, games: Sequence[DemoGame], total: int, console: Console) -> None:
        self.games = games
        self.latest: dict[str, StandingsResponse] = {}
        self.progress = Progress(
            TextColumn("publishing events"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self.task = self.progress.add_task("publish", total=total)

    def render(self) -> Group:
        tables = [
            standings_table(self.latest[g.game_id]) for g in self.games if g.game_id in self.latest
        ]
        return Group(self.progress, *tables)

    async def refresh_from(
        self, client: httpx.AsyncClient, live: Live, stop: asyncio.Event
    ) -> None:
        """Poll the query API every 0.3 s and redraw, until `stop` is set."""
        while not stop.is_set():
            for game in self.games:
                view = await fetch_standings(client, game.game_id)
                if view is not None:
                    self.latest[game.game_id] = view
            live.update(self.render())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.3)


async def wait_projected(
    client: httpx.AsyncClient, games: Sequence[DemoGame], timeout_s: float = 60.0
) -> None:
    """Read each game's standings until the projection reaches its last seq (sets `final`).

    Raises:
        TimeoutError: a game is not fully projected within `timeout_s`.
    """
    async with asyncio.timeout(timeout_s):
        for game in games:
            last = game.events[-1].seq
            while game.final is None or game.final.seq < last:
                game.final = await fetch_standings(client, game.game_id)
                if game.final is None or game.final.seq < last:
                    await asyncio.sleep(0.05)


ARCHIVE_AFTER_S = 2.0
"""The demo's SCORELEDGER_ARCHIVE_AFTER_S: a final game is sealed this soon after its end."""


async def wait_archived(
    client: httpx.AsyncClient, games: Sequence[DemoGame], archive_dir: Path, timeout_s: float = 60
) -> tuple[dict[str, int], list[str]]:
    """Wait until each game's file is in `archive_dir` (the directory archive's
    `<game_id>.jsonl.gz`) and Redis no longer answers for it alone, then read its standings
    again (now from the archive). Returns each file's bytes and the games whose standings
    read from the archive differ from the final ones.

    Raises: TimeoutError: a game is not archived within `timeout_s`.
    """
    sizes: dict[str, int] = {}
    differ: list[str] = []
    async with asyncio.timeout(timeout_s):
        for game in games:
            path = archive_dir / f"{game.game_id}.jsonl.gz"
            while True:  # the archiver is a task in the served app: nothing to wait on
                if path.exists():
                    break
                await asyncio.sleep(0.1)
            sizes[game.game_id] = path.stat().st_size
            again = await fetch_standings(client, game.game_id)
            same = again is not None and game.final is not None
            if not same or again.model_dump(include=set(COMPARED)) != game.final.model_dump(  # type: ignore[union-attr]
                include=set(COMPARED)
            ):
                differ.append(game.game_id)
    return sizes, differ


async def run_demo(
    redis_url: str,
    games: list[DemoGame],
    console: Console,
    keep_running: bool = False,
    on_report: Callable[[DemoReport], None] | None = None,
    cluster: bool = False,
    archive_dir: Path | None = None,
    host: str = "127.0.0.1",
) -> DemoReport:
    """Serve all roles on a free port over `redis_url`, publish `games`, wait for the projection.

    `cluster`: `redis_url` is a Redis Cluster (the services use the cluster client; a
    `redis+cluster://` URL says so by itself). `archive_dir`: a directory archive the games
    are sealed into `ARCHIVE_AFTER_S` after they end (the demo waits for it and reads them
    back from there); None: `SCORELEDGER_ARCHIVE_URL` as set (or none). With `keep_running`, `on_report` shows the report
    first, then it prints the pages' links and serves until Ctrl-C. `host`: the address to
    bind (`0.0.0.0`: phones on this network too; the QR codes then encode this machine's
    network address, `services.cli.demo_state.phone_base`). While the services are up, the
    demo's state file lets the other commands find them (`services.cli.demo_state`).

    Raises:
        PublishError: the ingest refused an event. TimeoutError: projection did not catch up.
        RuntimeError: the server did not start.
    """
    port = free_port()
    # every role: the demo publishes over HTTP, and the inbox is there to try
    roles = Roles(archiver=archive_dir is not None)
    overrides: dict[str, object] = {"redis_url": redis_url, "redis_cluster": cluster}
    if archive_dir is not None:
        overrides |= {
            "archive_url": archive_dir.as_uri(),  # absolute: a temporary directory
            "archive_after_s": ARCHIVE_AFTER_S,
            "archive_every_s": 0.5,
        }
    phones, qr_line = phone_base(host, port)
    if phones is not None and not os.environ.get("SCORELEDGER_PUBLIC_URL"):
        overrides["public_url"] = phones  # the QR codes: an address a phone reaches
    server = uvicorn_server(build_app(roles, overrides), host, port)
    serving = asyncio.create_task(server.serve())
    url = f"http://127.0.0.1:{port}"  # this machine's own requests
    try:
        while not server.started:
            if serving.done():
                raise RuntimeError(f"the services did not start: {serving.exception()!r}")
            await asyncio.sleep(0.02)
        write_state(
            DemoState(
                os.getpid(),
                url,
                redis_url,
                cluster,
                archive_dir.as_uri() if archive_dir is not None else None,
            )
        )
        if not keep_running:  # its pages stop with it: no links that will be dead
            console.print(
                "services up on this machine while the demo runs (with --keep-running they "
                "stay up, and it prints their links)",
                highlight=False,
            )
        tournament = DemoTournament(post_batch)
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            await tournament.pick_id(client)
        report = await _publish_and_watch(url, games, console, tournament)
        if archive_dir is not None:
            async with httpx.AsyncClient(base_url=url, timeout=30) as client:
                report.archived, differ = await wait_archived(client, games, archive_dir)
            report.mismatches += differ
        if keep_running:
            if on_report is not None:
                on_report(report)
            _print_links(console, report, url, phones, qr_line)
            await serving
        return report
    finally:
        clear_state(os.getpid())
        server.should_exit = True
        await serving


def _print_links(
    console: Console, report: DemoReport, url: str, phones: str | None, qr_line: str
) -> None:
    """The kept-running demo's links: each game's pages and write token, the tournament's
    room screen, phone view and desk (`phones`: the address phones reach, else `url`), the QR
    line and how the other commands find this demo. Every page link is at `phones` when set
    (the address phones on this network reach; it reaches this machine too)."""
    base = phones or url
    for game_id, token in report.tokens.items():
        console.print(
            f"{game_id}: {base}/games/{game_id}  TV: {base}/tv/{game_id}  "
            f"write token (for the dispute form): {token}",
            highlight=False,
            soft_wrap=True,
        )
    if report.tournament is not None:
        pages = report.tournament.urls(base)
        console.print(
            f"{report.tournament.tournament_id}: room screen {pages['room']}  phone "
            f"view {pages['phone']}  organiser's page {pages['desk']}  organiser "
            f"token (for the organiser's page): {report.tournament.token}",
            highlight=False,
            soft_wrap=True,
        )
    console.print(qr_line, highlight=False, soft_wrap=True)
    console.print(
        f"serving until Ctrl-C: the scoreboard at {base}/ , the API at {base}/docs ; "
        f"in another terminal `{_command()} publish FILE`, `export`, `forget` and "
        "`webhooks` use this demo by themselves",
        highlight=False,
        soft_wrap=True,
    )


async def _publish_and_watch(
    url: str, games: list[DemoGame], console: Console, tournament: DemoTournament
) -> DemoReport:
    events = round_robin(games)
    board = LiveBoard(games, len(events), console)
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        publisher = Publisher(client)
        with Live(board.render(), console=console, refresh_per_second=8, transient=True) as live:
            refresher = asyncio.create_task(board.refresh_from(client, live, stop))
            start = time.perf_counter()
            try:
                for sent, event in enumerate(events, 1):
                    with structlog.contextvars.bound_contextvars(
                        game_id=event.game_id, event_id=str(event.event_id), seq=event.seq
                    ):
                        await publisher.post([event])
                        log.debug("published")
                    board.progress.advance(board.task)
                    await tournament.step_to(client, sent / len(events))  # beside the games
                publish_s = time.perf_counter() - start
                await tournament.step_to(client, 1.0)
                tournament_line = await tournament.summary(client)
                await wait_projected(client, games)
                projected_s = time.perf_counter() - start
            finally:
                stop.set()
                await refresher
            board.latest.update({g.game_id: g.final for g in games if g.final is not None})
            live.update(board.render())
    return DemoReport(
        games,
        len(events),
        publish_s,
        projected_s,
        url,
        [g.game_id for g in games if not g.matches()],
        dict(publisher.tokens),
        tournament=tournament,
        tournament_line=tournament_line,
    )


def _command() -> str:
    """How a user in another terminal runs `scoreledger`: by name when it is on PATH, else the
    checkout's `.venv/bin/scoreledger` (what `make demo` installs)."""
    return "scoreledger" if shutil.which("scoreledger") else ".venv/bin/scoreledger"
