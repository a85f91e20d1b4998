"""`scoreledger simulate --http` against a target that fails: transient errors (a dropped
connection, a 503 with Retry-After) are retried with backoff and every event arrives once in
order; a target that stays down ends the run with one clear line and exit 1. Finding: at
5,000 events/s the command died with a 40-line `httpx.ReadError` traceback after 23,219 events.

The servers are real sockets (`http.server` in a thread); the command runs as a process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.redis_fixture import free_port

ROOT = Path(__file__).resolve().parents[2]


class Flaky(ThreadingHTTPServer):
    """Drops the first `drops` requests' connections unanswered, answers the next one 503 with
    `Retry-After: 1`, then 201 (a `duplicate` for an event id seen before)."""

    daemon_threads = True

    def __init__(self, drops: int) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.drops = drops
        self.busy_left = 1
        self.lock = threading.Lock()
        self.stored: dict[str, list[str]] = {}  # game -> event ids, in arrival order

    def decide(self) -> str:
        with self.lock:
            if self.drops > 0:
                self.drops -= 1
                return "drop"
            if self.busy_left > 0:
                self.busy_left -= 1
                return "busy"
            return "ok"


class Handler(BaseHTTPRequestHandler):
    server: Flaky

    def log_message(self, *_: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        decision = self.server.decide()
        if decision == "drop":
            self.close_connection = True
            self.connection.close()  # no answer at all: the client sees the connection end
            return
        if decision == "busy":
            self.send_response(503)
            self.send_header("Retry-After", "1")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        events = json.loads(body)
        with self.server.lock:
            ids = self.server.stored.setdefault(events[0]["game_id"], [])
            ids += [e["event_id"] for e in events if e["event_id"] not in ids]
        answer = b"{}"
        self.send_response(201)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


@pytest.fixture
def flaky() -> Iterator[Flaky]:
    server = Flaky(drops=5)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def simulate(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [
        sys.executable,
        "-m",
        "services.cli.simulate_command",
        "--game",
        "penumbra",
        "--tables",
        "2",
    ]
    return subprocess.run(
        [*args, "--seed", "3", "--rate", "500", "--http", url, *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def test_transient_errors_are_retried_and_every_event_arrives_once_in_order(
    flaky: Flaky,
) -> None:
    from services.simulator.tables import simulate_tables

    done = simulate(f"http://127.0.0.1:{flaky.server_address[1]}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert (flaky.drops, flaky.busy_left) == (0, 0)  # every failure was met, and got past
    expected: dict[str, list[str]] = {}
    for event in simulate_tables("penumbra", 3, 2):
        expected.setdefault(event.game_id, []).append(str(event.event_id))
    assert flaky.stored == expected


def test_a_target_that_stays_down_ends_with_one_clear_line_and_exit_1() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens
    done = simulate(url, "--retry-for", "2")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if "simulate" in line]
    assert len(lines) == 1, done.stderr
    assert url in lines[0], lines[0]
    assert "ConnectError" in lines[0], lines[0]
