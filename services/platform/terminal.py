"""What every `scoreledger` command shares: the two consoles and the log-file argument."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

out = Console()
"""Standard output: tables and reports."""
err = Console(stderr=True)
"""Standard error: progress, errors and notes, so stdout stays machine-readable."""

LogFile = Annotated[
    Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="JSONL event log")
]
"""A JSONL event log given on the command line (must exist and be readable)."""
