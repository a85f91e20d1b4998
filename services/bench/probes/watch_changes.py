"""`python watch_changes.py REDIS_URL SHARDS STOP_FILE OUT.json`: XREAD every shard's
`sl:changes:{sK}` notice stream (game, seq) and record when each notice was read
(time.monotonic, shared by the machine's processes) until STOP_FILE exists and the streams are
quiet; writes [[game, seq, t, notice id], ...] (the id's ms part: Redis's clock at the apply). Its own process, so the appender never delays it."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import redis


def main() -> None:
    url, shards, stop, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    client = redis.Redis.from_url(url)
    cursors: dict[str, str] = {
        f"sl:changes:{{s{s}}}": "0-0" for s in range(shards)
    }  # flushed before
    seen: list[tuple[str, int, float, str]] = []
    print("ready", flush=True)
    while True:
        replies: list[Any] = client.xread(cursors, block=100, count=5000)  # type: ignore[arg-type,assignment]
        now = time.monotonic()
        if not replies and os.path.exists(stop):
            break
        for stream, entries in replies:
            cursors[stream.decode()] = entries[-1][0].decode()
            for notice, fields in entries:
                seen.append((fields[b"game"].decode(), int(fields[b"seq"]), now, notice.decode()))
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(seen, fh)


if __name__ == "__main__":
    main()
