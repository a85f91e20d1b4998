"""`scoreledger serve`'s start-up check: one line naming what is wrong, and an exit code.

Before any role starts, `check_redis` sends one PING with the role's own client settings (URL,
ACL user, password, TLS), no retries and the connect timeout, so a missing Redis or refused
credentials show within seconds, the same for every role, instead of a traceback (or, for
some roles, a process that serves 503 forever). The line never carries a password: the URL is
shown with its password masked. Exit codes (sysexits.h, documented in docs/operating/configuration.md):

* `EXIT_UNAVAILABLE` (69): Redis cannot be reached (refused, timed out, unknown host, TLS,
  loading, cluster down);
* `EXIT_NOPERM` (77): Redis refused the credentials, or the ACL refused a command (PING, or
  one a role sends while it starts);
* `EXIT_CONFIG` (78): the configuration itself is invalid (a bad URL or setting);
* `EXIT_SOFTWARE` (70): a role failed to start after the check passed, or the port cannot
  be bound.

`LifespanGuard` wraps the app for uvicorn: a role whose start-up fails later (the inbox's
consumer group, the projector's readers) is reported the same way, classified like the PING,
instead of as a traceback in the log.

Source: docs/decisions/0019-hostile-input-at-every-door.md ("A clear start-up failure"), docs/decisions/0011-faults-are-answered-not-crashed.md ("Start-up that fails fast").
"""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from services.archive.ports.cold import ArchiveRefused, ArchiveUnavailable
from services.platform.causes import causes
from services.platform.settings import CommonSettings
from services.ports.errors import StoreError

EXIT_UNAVAILABLE = 69
EXIT_NOPERM = 77
EXIT_CONFIG = 78
EXIT_SOFTWARE = 70

_PASSWORD = re.compile(r"(//[^:@/]*):[^@/]*@")
_USER = re.compile(r"[\w.\-]+")
_HOSTS = re.compile(r"[\w.\-:\[\],/]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


@dataclass(frozen=True, slots=True)
class StartupFailure(Exception):
    """What stops `serve` from starting: one line (`message`, no secret) and the exit code."""

    message: str
    code: int

    def __str__(self) -> str:
        return self.message


def masked(url: str) -> str:
    """`url` as scheme, user, hosts and db only (`redis://ingest:***@host:6379/0`): the
    password and any query string (`?password=`) are never shown.

    Parsed without `urllib`, which is not what redis-py does with a password holding '@', '/',
    '#' or '?': the userinfo ends at the *last* '@' (redis-py's split), a query ('?', '#') after
    it is shown as `?…`, and if the userinfo holds '?' or '#' (a password, or a query holding
    '@': undecidable) nothing after the scheme is shown. Cluster URLs (`h1:p1,h2:p2`) keep
    their host list.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return "***"  # not a URL: nothing of it is known to be safe
    shown = f"{scheme}://"
    if "@" in rest:
        userinfo, rest = rest.rsplit("@", 1)
        if "?" in userinfo or "#" in userinfo:
            return f"{shown}***"
        user = userinfo.split(":", 1)[0] if ":" in userinfo else userinfo
        shown += f"{user}:***@" if _USER.fullmatch(user) else "***@"
    hosts = re.split(r"[?#]", rest, maxsplit=1)
    shown += (_HOSTS.match(hosts[0]) or _HOSTS.match("")).group()  # type: ignore[union-attr]
    return shown + ("?…" if len(hosts) > 1 else "")


def _secrets(url: str) -> list[str]:
    """The parts of `url` that may be secret: everything between the scheme and the last
    '@', and everything after the first '?' or '#'."""
    rest = url.partition("://")[2] or url
    parts = [rest.rsplit("@", 1)[0]] if "@" in rest else []
    parts += [q for q in re.split(r"[?#]", rest, maxsplit=1)[1:]]
    return [p for p in parts if p]


def scrubbed(text: str, url: str) -> str:
    """`text` (an error's message) fit for the start-up line: URL passwords masked, a quoted
    part holding '@' or a 4-character piece of a secret part of `url` (see `_secrets`;
    redis-py quotes parts of a bad URL) replaced by `'…'`, and the whole withheld if a piece is left."""
    pieces = {s[i : i + 4] for s in _secrets(url) for i in range(max(1, len(s) - 3))}

    def hidden(text: str) -> bool:
        return any(piece in text for piece in pieces)

    text = _QUOTED.sub(lambda m: "'…'" if hidden(m[0]) or "@" in m[0] else m[0], text)
    text = _PASSWORD.sub(r"\1:***@", text)
    return f"details withheld (they quote the URL {masked(url)})" if hidden(text) else text


def _user(settings: CommonSettings) -> str:
    if settings.redis_username is not None:
        return settings.redis_username
    try:
        return urlsplit(settings.redis_url.split(",")[0]).username or "default"
    except ValueError:
        return "default"


def _cause(error: BaseException) -> str:
    """A few words for why a connection failed (from the innermost OS error when there is one)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        if isinstance(seen, ssl.SSLError):
            return "TLS handshake failed"
        if isinstance(seen, TimeoutError) or _kind(seen) == "timeout":
            return "no answer in time"
        seen = seen.__cause__ or seen.__context__
    text = str(error).lower()
    if "refused" in text:
        return "connection refused"
    if "timeout" in text or "timed out" in text:
        return "no answer in time"
    return type(error).__name__


def _kind(error: BaseException) -> str | None:
    """What failed, for a storage error (`StoreError.kind`), else None."""
    return error.kind if isinstance(error, StoreError) else None


def classify(error: BaseException, settings: CommonSettings) -> StartupFailure:
    """The `StartupFailure` for an error of the start-up PING (or of a role starting)."""
    if isinstance(error, ArchiveRefused):
        return StartupFailure(
            f"the archive of SCORELEDGER_ARCHIVE_URL refused the connection ({str(error)[:200]})",
            EXIT_NOPERM,
        )
    if isinstance(error, ArchiveUnavailable):  # a ConnectionError too: not Redis's
        return StartupFailure(
            f"cannot reach the archive of SCORELEDGER_ARCHIVE_URL ({str(error)[:200]})",
            EXIT_UNAVAILABLE,
        )
    where = masked(settings.redis_url)
    chain = causes(error)
    auth = next((e for e in chain if _kind(e) == "credentials"), None)
    if auth is not None or any("WRONGPASS" in str(e) for e in chain):
        return StartupFailure(
            f"Redis at {where} refused the credentials of user {_user(settings)!r}", EXIT_NOPERM
        )
    if _kind(error) == "permission":
        said = scrubbed(str(error), settings.redis_url)[:160]  # Redis names the command or key
        return StartupFailure(
            f"Redis at {where} refused a command of ACL user {_user(settings)!r} ({said})",
            EXIT_NOPERM,
        )
    if _kind(error) == "loading":
        return StartupFailure(f"Redis at {where} is loading its data; retry", EXIT_UNAVAILABLE)
    if isinstance(error, ValueError):  # redis-py or the cluster URL parser refused the URL
        said = scrubbed(str(error), settings.redis_url)[:200].removeprefix("redis_url: ")
        if "schemes" in said:  # redis-py lists its own schemes, not the cluster ones we add
            said += "; for a Redis Cluster redis+cluster:// or rediss+cluster://"
        return StartupFailure(f"invalid settings: {REDIS_URL_SETTING}: {said}", EXIT_CONFIG)
    return StartupFailure(f"cannot reach Redis at {where} ({_cause(error)})", EXIT_UNAVAILABLE)


REDIS_URL_SETTING = "SCORELEDGER_REDIS_URL"
"""How a bad Redis URL is named (the `--redis-url` option, when given, stands for it)."""


def setting_name(loc: tuple[int | str, ...]) -> str:
    """The environment variable of a settings error's location (`shards` ->
    `SCORELEDGER_SHARDS`; an alias such as `SCORELEDGER_REDIS_URL` as it is), with any
    inner location (a list's index) after a dot."""
    if not loc:
        return "settings"
    head = str(loc[0])
    name = head if head.isupper() else f"SCORELEDGER_{head.upper()}"
    return ".".join([name, *(str(p) for p in loc[1:])])


def settings_failure(error: ValidationError) -> StartupFailure:
    """A settings error as one line: the variables and pydantic's messages, never the values."""
    fields = "; ".join(
        f"{setting_name(e['loc'])}: {e['msg']}"
        for e in error.errors(include_url=False, include_input=False)[:3]
    )
    return StartupFailure(f"invalid settings: {fields}", EXIT_CONFIG)


async def _ping(settings: CommonSettings, timeout_s: float) -> None:
    from services.bootstrap import ping_once  # the composition root builds the client

    async with asyncio.timeout(timeout_s + 1):
        await ping_once(settings, timeout_s)


def check_redis(settings: CommonSettings, timeout_s: float = 3.0) -> None:
    """PING Redis once as this role's user, within about `timeout_s` seconds.

    Raises:
        StartupFailure: Redis is unreachable, refused the credentials, or the URL is bad.
    """
    try:
        asyncio.run(_ping(settings, timeout_s))
    except Exception as error:  # every failure becomes one line; nothing else is shown
        raise classify(error, settings) from None


def check_port(host: str, port: int) -> None:
    """Bind `host:port` once (as uvicorn will, with SO_REUSEADDR) and let it go, so a taken
    port is one line before uvicorn starts (its logs would come first otherwise).

    Raises:
        StartupFailure: the port cannot be bound (`EXIT_SOFTWARE`, 70).
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:
        why = error.strerror or type(error).__name__
        raise StartupFailure(f"cannot listen on {host}:{port} ({why})", EXIT_SOFTWARE) from None


class LifespanGuard:
    """The ASGI app `app` for uvicorn, whose lifespan start-up failure is kept as `failure`
    (one line: a storage fault classified like the PING, else the error's type and a short
    message) and told to uvicorn without a traceback. Everything else passes through.

    Args:
        app: a FastAPI/Starlette app (its `router.lifespan_context` runs the roles).
    """

    def __init__(self, app: Any, settings: CommonSettings) -> None:
        self.app = app
        self.settings = settings
        self.failure: StartupFailure | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        await receive()  # lifespan.startup
        started = False
        try:
            async with self.app.router.lifespan_context(self.app):
                await send({"type": "lifespan.startup.complete"})
                started = True
                await receive()  # lifespan.shutdown
        except Exception as error:
            if started:
                await send({"type": "lifespan.shutdown.failed", "message": repr(error)[:300]})
                return
            self.failure = self._failure(error)
            await send({"type": "lifespan.startup.failed", "message": ""})
            return
        await send({"type": "lifespan.shutdown.complete"})

    def _failure(self, error: BaseException) -> StartupFailure:
        from services.doors.asgi.http_errors import storage_fault  # the web stack: loaded by now

        leaf = error
        while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
            leaf = leaf.exceptions[0]
        if (
            storage_fault(error) is not None
            or isinstance(leaf, OSError)
            or _kind(leaf) == "permission"
        ):
            found = classify(leaf, self.settings)
            return StartupFailure(f"a role failed to start: {found.message}", found.code)
        text = scrubbed(str(leaf), self.settings.redis_url)[:200]
        return StartupFailure(
            f"a role failed to start: {type(leaf).__name__}: {text}", EXIT_SOFTWARE
        )
