"""A hostile webhook receiver on loopback for the whole-request deadline tests: it reads the
request's head, then sends a status line and one header line every `every_s` seconds, so that
no single read waits long and a per-read timeout never fires."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def trickling_receiver(every_s: float = 0.5, lines: int = 40) -> Iterator[str]:
    """A receiver's URL (`http://127.0.0.1:PORT/hook`) for the block's duration; each
    connection gets `lines` header lines, one every `every_s` seconds, then is closed."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def one(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                for n in range(lines):
                    if stop.wait(every_s):
                        return
                    conn.sendall(f"x-trickle-{n}: {n}\r\n".encode())
            except OSError:
                return

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            threading.Thread(target=one, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/hook"
    finally:
        stop.set()
        thread.join()
        server.close()


def elapsed_s(since: float) -> float:
    """Seconds since `since` (a `time.monotonic()` reading)."""
    return time.monotonic() - since
