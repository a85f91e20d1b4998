"""What every `scoreledger` command shares: the two consoles and the log-file argument."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress

out = Console()
"""Standard output: tables and reports."""
err = Console(stderr=True)
"""Standard error: progress, errors and notes, so stdout stays machine-readable."""

LogFile = Annotated[
    Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="JSONL event log")
]
"""A JSONL event log given on the command line (must exist and be readable)."""


def progress_bar(console: Console = err) -> Progress:
    """The bar of a command that sends events: description, bar, `done/total` and the time
    elapsed, drawn on `console` (standard error)."""
    from rich.progress import (  # only the commands that send draw it
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
        console=console,
    )
