"""`python valid.py OUT.json FILE...`: which logs this tree's `scoreledger score FILE --json`
accepts (exit 0), run in this one process; writes the accepted paths. The workloads keep only
games every compared tree accepts, since the rules grow stricter between trees."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> None:
    out, files = sys.argv[1], sys.argv[2:]
    from services.cli.main import app

    keep = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    accepted = []
    try:
        os.dup2(devnull, 1)
        for f in files:
            try:
                code = app(["score", f, "--json"], standalone_mode=False)
            except SystemExit as stop:
                if stop.code not in (0, None):
                    continue
            except Exception:
                continue
            if code in (0, None):  # click returns a typer.Exit's code without standalone mode
                accepted.append(f)
    finally:
        sys.stdout.flush()
        os.dup2(keep, 1)
    Path(out).write_text(json.dumps(accepted), encoding="utf-8")


if __name__ == "__main__":
    main()
