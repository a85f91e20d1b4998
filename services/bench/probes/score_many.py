"""`python score_many.py OUT.json REPEATS FILE...`: the tree's `scoreledger score FILE --json`
invoked in this one process for every file (the CLI command as users run it, start-up paid once),
`REPEATS` times, against `json.loads` of the same lines, both as CPU seconds of this process.
The click command is built from the typer app once, as a process does at start-up (typer
builds it again on every `app(...)` call: about 40 ms for this app, which drowned the per-event
work in the per-call cost the offline-fold row subtracts).

Writes {"events", "score_cpu_s", "loads_cpu_s", "import_cpu_s"} (best of the repeats) to OUT.json.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main() -> None:
    out, repeats, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    started = time.process_time()
    import typer

    from services.cli.main import app

    command = typer.main.get_command(app)
    imported = time.process_time() - started
    texts = [Path(f).read_text(encoding="utf-8").splitlines() for f in files]
    events = sum(len(t) for t in texts)
    keep = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    score, loads = float("inf"), float("inf")
    try:
        os.dup2(devnull, 1)
        for _ in range(repeats):
            t0 = time.process_time()
            for f in files:
                try:
                    code = command(["score", f, "--json"], standalone_mode=False)
                except SystemExit as stop:
                    if stop.code not in (0, None):
                        raise
                else:
                    if code not in (0, None):  # click returns a typer.Exit's code
                        raise RuntimeError(f"score {f} exited {code}")
            score = min(score, time.process_time() - t0)
            t0 = time.process_time()
            for lines in texts:
                for line in lines:
                    json.loads(line)
            loads = min(loads, time.process_time() - t0)
    finally:
        sys.stdout.flush()
        os.dup2(keep, 1)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(
            {
                "events": events,
                "score_cpu_s": score,
                "loads_cpu_s": loads,
                "import_cpu_s": imported,
            },
            fh,
        )


if __name__ == "__main__":
    main()
