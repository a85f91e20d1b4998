"""A benchmark server process: `python -m services.bench.server ROLES PORT REDIS_URL`.

Runs `services.cli.serve.build_app` for the comma-separated roles (`ingest`, `inbox`,
`projector`, `query`) under uvicorn on 127.0.0.1:PORT, exactly as `scoreledger serve` builds it
(uvicorn's `auto` loop and HTTP picks uvloop and httptools when installed). `Server` starts it
as a child process and stops it by its own handle.
"""

from __future__ import annotations

import subprocess
import sys
import time
from types import TracebackType

import httpx
import uvicorn

from services.bench.redis_server import free_port


class Server:
    """`with Server("query", redis_url) as srv: srv.base_url ...` (a child process)."""

    def __init__(
        self, roles: str, redis_url: str, ready_path: str = "/healthz", cwd: str | None = None
    ) -> None:
        self.roles, self.redis_url, self.port = roles, redis_url, free_port()
        self.ready_path, self.cwd = ready_path, cwd  # cwd: another checkout, for A/B runs
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "services.bench.server",
                self.roles,
                str(self.port),
                self.redis_url,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.cwd,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.base_url + self.ready_path, timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"bench server {self.roles} did not start")
            time.sleep(0.1)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def main() -> None:
    from services.cli.serve import Roles, build_app, uvicorn_server

    roles_arg, port, redis_url = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    names = set(roles_arg.split(","))
    roles = Roles(**{name: name in names for name in ("ingest", "inbox", "projector", "query")})
    server = uvicorn_server(build_app(roles, {"redis_url": redis_url}), "127.0.0.1", port)
    assert isinstance(server.config, uvicorn.Config)
    server.run()


if __name__ == "__main__":
    main()
