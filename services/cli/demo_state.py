"""Where a running `scoreledger demo` can be found, so the other commands need no copied URL.

While its services are up the demo writes one small JSON file (`state_path()`: in
`$XDG_RUNTIME_DIR/scoreledger/` when that is set, else in the repository's `.cache/`), mode
0600 since a configured Redis URL may carry a password: its process id, its HTTP base URL,
its Redis URL (and whether that is a cluster) and its archive URL. It removes the file when it
stops. `publish` takes the URL from it and `export`, `forget`, `release` and `webhooks` the
Redis and the archive, when neither an option nor the environment names them; each says
which one it uses. A file left by a demo that died (its process is gone) is ignored and
removed. See docs/getting-started.md ("Keep the demo running").

`phone_base(host, port)` is the address the demo's QR codes encode: a non-loopback address
of this machine when it serves every interface (`--host 0.0.0.0`), else None with the reason
phones cannot reach it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from services.platform.terminal import err

ROOT = Path(__file__).resolve().parents[2]
FILE_NAME = "scoreledger-demo.json"
REDIS_ENV = ("SCORELEDGER_REDIS_URL", "REDIS_URL")
ARCHIVE_ENV = "SCORELEDGER_ARCHIVE_URL"


@dataclass(frozen=True)
class DemoState:
    """A running demo: its `pid`, HTTP base `url`, `redis_url` (`cluster`: a Redis Cluster)
    and `archive_url` (None: no archive)."""

    pid: int
    url: str
    redis_url: str
    cluster: bool = False
    archive_url: str | None = None


def state_path() -> Path:
    """The state file: under `$XDG_RUNTIME_DIR/scoreledger/` (a per-user tmpfs) when set,
    else `<repository>/.cache/`."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return (Path(runtime) / "scoreledger" if runtime else ROOT / ".cache") / FILE_NAME


def write_state(state: DemoState) -> Path:
    """Write `state` (mode 0600, replaced atomically); returns the file's path."""
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(asdict(state), file)
    partial.replace(path)
    return path


def clear_state(pid: int | None = None) -> None:
    """Remove the state file (only when it names `pid`, if given: another demo's stays)."""
    path = state_path()
    if pid is not None:
        found = _read(path)
        if found is None or found.pid != pid:
            return
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _read(path: Path) -> DemoState | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return DemoState(**data)
    except (OSError, ValueError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def running_demo() -> DemoState | None:
    """The running demo, or None (no file, an unreadable one, or its process is gone: then
    the stale file is removed)."""
    path = state_path()
    state = _read(path)
    if state is None or not _alive(state.pid):
        if state is not None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return None
    return state


def redis_from_demo(redis_url: str | None) -> DemoState | None:
    """The running demo whose Redis a command should use: only when `redis_url` (its
    `--redis-url`) is None and neither `SCORELEDGER_REDIS_URL` nor `REDIS_URL` is set."""
    if redis_url or any(os.environ.get(name) for name in REDIS_ENV):
        return None
    return running_demo()


def demo_overrides(state: DemoState) -> dict[str, object]:
    """Settings overrides for `state`'s Redis, and its archive unless
    `SCORELEDGER_ARCHIVE_URL` is set."""
    overrides: dict[str, object] = {"redis_url": state.redis_url, "redis_cluster": state.cluster}
    if state.archive_url and not os.environ.get(ARCHIVE_ENV):
        overrides["archive_url"] = state.archive_url
    return overrides


def redis_overrides(redis_url: str | None) -> dict[str, Any]:
    """Settings overrides for a command's Redis: `--redis-url`, else the environment's (no
    override), else a running demo's Redis and archive, saying so on stderr."""
    if redis_url:
        return {"redis_url": redis_url}
    state = redis_from_demo(None)
    if state is None:
        return {}
    err.print(
        f"using the running demo's Redis (the demo at {state.url}; --redis-url or REDIS_URL "
        "choose another)",
        highlight=False,
        soft_wrap=True,
    )
    return demo_overrides(state)


def lan_address() -> str | None:
    """A non-loopback IPv4 address of this machine (the one its default route leaves by), or
    None when it has none. A UDP `connect` sends no packet: it only picks the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): never answered
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def phone_base(host: str, port: int) -> tuple[str | None, str]:
    """The base URL phones on the same network reach the demo at, and why: a non-loopback
    address of this machine when serving `0.0.0.0`; None (QR codes keep the page's own
    address) when bound to loopback only or no such address exists."""
    if host != "0.0.0.0":
        return None, (
            f"QR codes encode {host}, which only this machine reaches; "
            "`scoreledger demo --keep-running --host 0.0.0.0` serves phones on this network"
        )
    address = lan_address()
    if address is None:
        return None, "QR codes encode the page's own address: this machine has no network address"
    base = f"http://{address}:{port}"
    return base, f"QR codes encode {base}, which phones on this machine's network reach"
