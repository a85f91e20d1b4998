"""`python poll_healthz.py BASE_URL STOP_FILE OUT.json`: GET BASE_URL/healthz every 10 ms on one
keep-alive connection (stdlib http.client, its own process so the measuring client never waits
for a busy harness) until STOP_FILE exists; writes the latencies in ms."""

from __future__ import annotations

import http.client
import json
import os
import sys
import time
from urllib.parse import urlsplit


def main() -> None:
    base, stop, out = sys.argv[1], sys.argv[2], sys.argv[3]
    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=60)
    latencies: list[float] = []
    while not os.path.exists(stop):
        t0 = time.perf_counter()
        conn.request("GET", "/healthz")
        conn.getresponse().read()
        latencies.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.01)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(latencies, fh)


if __name__ == "__main__":
    main()
