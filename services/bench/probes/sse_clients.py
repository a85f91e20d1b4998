"""`python sse_clients.py HOST PORT PATH N LAST_SEQ OUT.json`: N raw-socket subscribers of an SSE
route (stdlib asyncio only, so the load generator stays cheap); prints "ready" once every
connection has its response headers, records for each `data:` frame the seq it carries and
when it arrived (time.monotonic), and exits when every connection saw LAST_SEQ (or after 120 s).
Writes [[connection, seq, t], ...]."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any


def seq_of(frame: Any) -> int | None:
    """The standings seq a frame carries: top level, or under "standings" or "change" (the
    compact frames of the scoreboard branch)."""
    if isinstance(frame, dict):
        if isinstance(frame.get("seq"), int):
            return int(frame["seq"])
        for key in ("standings", "change"):
            inner = frame.get(key)
            if isinstance(inner, dict) and isinstance(inner.get("seq"), int):
                return int(inner["seq"])
    return None


async def subscriber(
    k: int, host: str, port: int, path: str, last: int, got: list[list[float]], ready: list[int]
) -> None:
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 22)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    ready[0] += 1
    while True:
        line = await reader.readline()
        if not line:
            break
        if line.startswith(b"data:"):
            now = time.monotonic()
            try:
                seq = seq_of(json.loads(line[5:]))
            except ValueError:
                continue
            if seq is not None:
                got.append([k, seq, now])
                if seq >= last:
                    break
    writer.close()


async def main() -> None:
    host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    n, last, out = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    got: list[list[float]] = []
    ready = [0]
    tasks = [
        asyncio.create_task(subscriber(k, host, port, path, last, got, ready)) for k in range(n)
    ]
    while ready[0] < n:
        await asyncio.sleep(0.05)
    print("ready", flush=True)
    await asyncio.wait(tasks, timeout=120)
    await asyncio.to_thread(Path(out).write_text, json.dumps(got), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
