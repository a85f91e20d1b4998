"""`python -m services.bench [--quick] [--out docs/benchmarks.md]` (`make bench`): docs/decisions/0012-hot-reads-and-off-loop-replays.md's
target table, every row measured in this one run on the landed code (the baseline commit in a
temporary git worktree, "today") and on the current tree ("new"), with the same workloads
through the interfaces both trees share; then docs/decisions/0011-faults-are-answered-not-crashed.md's scale rows and the capacity model.

Sizes: a full run aims at about 15 minutes on the 2-core development machine, `--quick` at about
2 (a smoke run: small workloads, noisier figures, no profiles).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from services.bench import (
    corpus,
    rows_durable,
    rows_fold,
    rows_http,
    rows_instructions,
    rows_kernel,
    rows_live,
    rows_peer,
    rows_projector,
    rows_roles,
    rows_scale,
    rows_seating,
    rows_sse,
)
from services.bench.redis_server import RedisServer
from services.bench.table import Report, Row, load, machine, now, render
from services.bench.trees import BASELINE, Tree, baseline, current

err = Console(stderr=True)


@dataclass(frozen=True)
class Sizes:
    """How big each workload is (see each row's function for what the numbers mean)."""

    tables: int
    fold_games: int
    fold_repeats: int
    long_game: int
    standings_games: int
    score_repeats: int
    projector_games: int
    rebuild_events: int
    rebuild_timeout_s: float
    live_seconds: float
    read_seconds: float
    read_games: int
    series_events: int
    sse_subscribers: int
    sse_changes: int
    peer_games: int
    scale_games: int
    profiles: bool
    scale_processes: tuple[int, ...] = (1, 2, 3)
    projector_repeats: int = 2
    roles_games: int = 100
    roles_repeats: int = 3
    kernel_lengths: tuple[int, ...] = (200, 2_000, 10_000)
    seating_players: tuple[int, ...] = (12, 13, 24, 30, 60)


FULL = Sizes(
    tables=400,
    fold_games=150,
    fold_repeats=3,
    long_game=10_000,
    standings_games=30,
    score_repeats=5,
    projector_games=400,
    rebuild_events=1_000_000,
    rebuild_timeout_s=240,
    live_seconds=15,
    read_seconds=8,
    read_games=40,
    series_events=6_000,
    sse_subscribers=1_000,
    sse_changes=20,
    peer_games=20,
    scale_games=400,
    profiles=True,
)
QUICK = Sizes(
    tables=60,
    fold_games=20,
    fold_repeats=1,
    long_game=2_000,
    standings_games=5,
    score_repeats=1,
    projector_games=60,
    rebuild_events=30_000,
    rebuild_timeout_s=60,
    live_seconds=3,
    read_seconds=2,
    read_games=20,
    series_events=1_000,
    sse_subscribers=100,
    sse_changes=5,
    peer_games=3,
    scale_games=60,
    profiles=False,
    scale_processes=(1, 2),
    projector_repeats=1,
    roles_games=10,
    roles_repeats=1,
    kernel_lengths=(200, 2_000),
)


def measure(
    sizes: Sizes, trees: list[Tree], report: Report, only: frozenset[str] = frozenset()
) -> None:
    """Every row (or the steps named in `only`), in the issue's order; a row that fails is
    noted, the others still run."""
    games, made = corpus.common(trees, sizes.tables, seed=2026)
    report.notes.append(f"{made}; {len(games)} games, {corpus.count(games)} events")
    err.print(report.notes[-1])
    if not corpus.trickerion(games):
        raise RuntimeError("no Trickerion game accepted by every tree (the long games pad one)")

    step = functools.partial(_step, report, only)

    fold_games = games[: sizes.fold_games]
    step("offline fold", lambda: rows_fold.offline_fold(trees, fold_games, sizes.fold_repeats))
    step("fold by length", lambda: rows_fold.fold_by_length(trees, games, sizes.long_game))
    _extra_rows(
        report,
        "fold_cost",
        None
        if only and "fold_cost" not in only
        else lambda: (rows_kernel.kernel_rows(sizes.kernel_lengths), []),
    )
    standings_games = games[: sizes.standings_games]
    step("standings", lambda: rows_fold.standings_each(trees, standings_games))
    if not only or "seating" in only:  # new tree only: report.extra, like the kernel rows
        new = trees[-1]
        _extra_rows(
            report,
            "seating",
            lambda: (
                rows_seating.rows(
                    rows_seating.measure(new.root, new.env(), players=sizes.seating_players)
                ),
                [],
            ),
        )
    with RedisServer() as redis_srv:
        url = redis_srv.url
        proj_games = games[: sizes.projector_games]
        step(
            "projector",
            lambda: rows_projector.catch_up_row(trees, url, proj_games, sizes.projector_repeats),
        )
        if "catch-up instructions" in only:  # asked for by name only: minutes under valgrind
            step(
                "catch-up instructions",
                lambda: rows_instructions.catch_up_instructions_row(trees, url, proj_games),
            )
        rates = [(300.0, 15.0, "405 ms"), (1000.0, 50.0, "1.4 s")]
        step("live", lambda: rows_live.live_rows(trees, url, games, rates, sizes.live_seconds))
        read_games = games[: sizes.read_games]
        step(
            "standings GET",
            lambda: rows_http.standings_row(trees, url, read_games, sizes.read_seconds),
        )
        step(
            "SSE",
            lambda: rows_sse.sse_row(trees, url, games, sizes.sse_subscribers, sizes.sse_changes),
        )
        step(
            "rebuild",
            lambda: rows_projector.rebuild_row(
                trees, url, games, sizes.rebuild_events, sizes.rebuild_timeout_s
            ),
        )
        step("series", lambda: rows_http.series_row(trees, url, games, sizes.series_events))
        step("score", lambda: rows_fold.score_example(trees, sizes.score_repeats))
        step(
            "all-roles",
            lambda: rows_roles.all_roles_row(trees, url, sizes.roles_games, sizes.roles_repeats),
        )
        if "instructions" in only:  # asked for by name only: minutes under valgrind
            step("instructions", lambda: rows_instructions.instructions_row(trees, url))
        peer_games = games[: sizes.peer_games]
        step("peer", lambda: rows_peer.peer_row(trees, url, peer_games))
        step("durable acks", lambda: rows_durable.rows(trees[-1], games[:100]))
        scale_games = games[: sizes.scale_games]
        _extra_rows(
            report,
            "scale",
            None
            if only and "scale" not in only
            else lambda: rows_scale.scale(
                trees[-1], url, scale_games, report.rows, sizes.scale_processes
            ),
        )
        if sizes.profiles and (not only or "profiles" in only):
            from services.bench import profiles

            report.notes.extend(profiles.take(trees[-1], url, games))


def _step(report: Report, only: frozenset[str], name: str, work: object) -> None:
    """Run one row's `work` (a callable, or its result) unless `only` leaves it out; a row
    that fails is noted in `report`, the others still run."""
    if only and name not in only:
        return
    started = time.perf_counter()
    try:
        got = work() if callable(work) else work
    except Exception as error:  # one failing row must not lose the others
        report.notes.append(f"{name}: NOT MEASURED, {type(error).__name__}: {error}"[:600])
        err.print(f"[red]{name} failed: {error}")
        return
    rows = got if isinstance(got, list) else list(got) if isinstance(got, tuple) else [got]
    report.rows.extend(r for r in rows if isinstance(r, Row))
    err.print(f"{name}: {time.perf_counter() - started:.0f} s")


def _extra_rows(
    report: Report,
    label: str,
    work: Callable[[], tuple[Iterable[Any], Iterable[str]]] | None,
) -> None:
    """Add the new tree's extra rows and notes `work` gives (None: left out by `--only`); a
    failure is noted in `report` (`<label> rows: NOT MEASURED`). The time is printed either
    way."""
    started = time.perf_counter()
    if work is not None:
        try:
            extra, notes = work()
            report.extra.extend(extra)
            report.notes.extend(notes)
        except Exception as error:
            report.notes.append(
                f"{label} rows: NOT MEASURED, {type(error).__name__}: {error}"[:600]
            )
    err.print(f"{label}: {time.perf_counter() - started:.0f} s")


STEPS = (
    "offline fold, fold by length, fold_cost, standings, seating, projector, catch-up instructions, "
    "live, standings GET, SSE, rebuild, series, score, all-roles, instructions, peer, durable acks, "
    "scale, profiles"
)


def main(
    quick: Annotated[bool, typer.Option("--quick", help="a ~2-minute smoke run")] = False,
    out: Annotated[Path, typer.Option("--out", help="where to write the report")] = Path(
        "docs/benchmarks.md"
    ),
    commit: Annotated[
        str, typer.Option("--baseline", help="the landed code to compare")
    ] = BASELINE,
    only: Annotated[
        str,
        typer.Option(
            "--only",
            help=f"comma-separated steps to run (of: {STEPS}; "
            "the two instructions steps run only when named)",
        ),
    ] = "",
) -> None:
    """Run the benchmarks on both trees and write the report."""
    from services.platform.lifetime import exit_on_sigterm

    exit_on_sigterm()  # a SIGTERM unwinds: every server and tree the run started is stopped
    sizes = QUICK if quick else FULL
    started = time.perf_counter()
    report = Report()
    load_start = load()
    new = current()
    with baseline(commit) as today:
        report.head = {
            "Machine": machine(),
            "Date": now(),
            "Command": "python -m services.bench" + (" --quick" if quick else ""),
            "Commits": f"today = {today.commit} (baseline), new = {new.commit}",
            "Load average at start": load_start,
        }
        steps = frozenset(s.strip() for s in only.split(",") if s.strip())
        unknown = steps - {s.strip() for s in STEPS.split(",")}
        if unknown:
            raise typer.BadParameter(f"unknown steps {sorted(unknown)}; known: {STEPS}")
        measure(sizes, [today, new], report, steps)
    report.head["Load average at end"] = load()
    report.head["Run time"] = f"{(time.perf_counter() - started) / 60:.1f} min"
    report.head["Redis"] = _redis_version()
    text = render(report)
    if out.exists():
        text += _kept_sections(out.read_text(encoding="utf-8"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    err.print(text)


def _redis_version() -> str:
    import subprocess

    try:
        words = subprocess.run(
            ["redis-server", "--version"], capture_output=True, text=True
        ).stdout.split()
        return words[2].removeprefix("v=")
    except (OSError, IndexError):
        return "unknown"


KEPT = (
    "<!-- kept: sections below are written by hand (or by other tools) and kept by make bench -->"
)


def _kept_sections(old: str) -> str:
    """Hand-written sections after the KEPT marker (e.g. the kernel's offline-fold rows)."""
    return "\n" + old[old.index(KEPT) :] if KEPT in old else ""


if __name__ == "__main__":
    typer.run(main)
