"""The `scoreledger` command line (typer + rich). Entry point: `scoreledger = services.cli.main:app`.

Commands: `score` (offline fold of a JSONL log), `serve` (run the services with uvicorn),
`publish` (send a JSONL log over HTTP), `export` (a game's log as JSONL), `demo` (everything,
end to end, on a throwaway Redis). Each command is thin; the work lives in sibling modules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from services.cli.offline import LogLineError, score_file, standings_summary
from services.cli.render import standings_table

app = typer.Typer(name="scoreledger", help="Live, event-sourced scoring for Trickerion and Penumbra.", no_args_is_help=True)
out = Console()
err = Console(stderr=True)



@app.callback()
def main() -> None:
    """Live, event-sourced scoring for Trickerion and Penumbra on Redis Streams."""


LogFile = Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="JSONL event log")]


@app.command()
def score(
    file: LogFile,
    as_json: Annotated[bool, typer.Option("--json", help="print the standings as JSON")] = False,
) -> None:
    """Fold a JSONL event log offline (pure domain) and print the standings.

    Exits 1 at the first bad line, naming its line number, rule and field.
    """
    try:
        result = score_file(file)
    except LogLineError as error:
        err.print(f"[red]{escape(str(file))}:[/red] {escape(str(error))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(standings_summary(result), ensure_ascii=False))
    else:
        out.print(standings_table(result))


if __name__ == "__main__":  # pragma: no cover
    app()
