"""`python -m services.bench.replay_flood [--tree PATH] [--seconds 60] [--clients 8]
[--events 20000] [--out FILE]`: run the replay flood probe (`probes/replay_flood.py`) against a
tree's services on loopback: a private redis-server, ingest with the projector (`serve
--no-query`) and the query service alone (`serve --no-ingest --no-projector --no-inbox`), each
its own process; prints the probe's JSON. `--tree` is a checkout (default this one), e.g. an
older commit extracted with `git archive COMMIT | tar -x -C DIR`, to compare before and after.
Extra `--env NAME=VALUE` pairs go to both services (e.g. a replay limit setting).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from services.bench import proc
from services.bench.redis_server import RedisServer, free_port
from services.bench.trees import ROOT, Tree

PROBE = Path(__file__).parent / "probes" / "replay_flood.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the services")
    args = parser.parse_args()
    tree = Tree("probe", args.tree.resolve(), "")
    extra = dict(pair.split("=", 1) for pair in args.env)
    out = args.out or Path(tempfile.mkstemp(prefix="replay-flood-", suffix=".json")[1])
    with RedisServer() as redis:
        env = tree.env(PYTHONDONTWRITEBYTECODE="1", **extra)
        ingest_port, query_port = free_port(), free_port()
        ingest = tree.cli("serve", "--no-query", "--host", "127.0.0.1", "--port",
                          str(ingest_port), "--redis-url", redis.url)  # fmt: skip
        query = tree.cli("serve", "--no-ingest", "--no-projector", "--no-inbox", "--host",
                         "127.0.0.1", "--port", str(query_port), "--redis-url", redis.url)  # fmt: skip
        ingest_url, query_url = f"http://127.0.0.1:{ingest_port}", f"http://127.0.0.1:{query_port}"
        with (
            proc.Service(ingest, env, tree.root, ingest_url + "/healthz"),
            proc.Service(query, env, tree.root, query_url + "/healthz"),
        ):
            argv = [sys.executable, str(PROBE), ingest_url, query_url, str(out)]
            argv += [str(args.seconds), str(args.clients), str(args.events)]
            subprocess.run(argv, check=True, timeout=args.seconds + 600, cwd=ROOT)
    print(json.dumps(json.loads(out.read_text()), indent=1))


if __name__ == "__main__":
    main()
