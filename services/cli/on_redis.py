"""One error style for every command that talks to Redis (`serve`, `export`, `release`,
`simulate --inbox`, and `demo`'s settings): one line on stderr, `scoreledger <command>:
<what is wrong>`, and a sysexits code, the same words and codes as `serve`'s start-up check
(`services.cli.startup`):

* 78 (`EXIT_CONFIG`): a bad setting, named by its variable (`SCORELEDGER_REDIS_URL`, ...);
* 69 (`EXIT_UNAVAILABLE`): Redis cannot be reached (refused, timed out, unknown host, TLS,
  loading);
* 77 (`EXIT_NOPERM`): Redis refused the credentials or a command of the ACL user.

`settings_or_exit` builds a command's settings; `run_on_redis` PINGs Redis once (no retries,
about 3 s) and then runs the command's coroutine, classifying a Redis or socket error it raises
the same way. No traceback, no password (URLs are masked). Source: sysexits.h; docs/decisions/0019-hostile-input-at-every-door.md
("a clear start-up failure").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn, TypeVar

import typer
from pydantic import ValidationError

from services.cli.startup import StartupFailure, check_redis, classify, settings_failure
from services.platform.settings import CommonSettings

S = TypeVar("S", bound=CommonSettings)
T = TypeVar("T")


def fail(command: str, failure: StartupFailure) -> NoReturn:
    """Print `scoreledger <command>: <failure.message>` on stderr and exit with its code."""
    typer.echo(f"scoreledger {command}: {failure.message}", err=True)
    raise typer.Exit(failure.code)


def settings_or_exit(command: str, build: Callable[[], S]) -> S:
    """`build()` (a settings class with the command's overrides); a bad setting exits 78,
    naming its variable."""
    try:
        return build()
    except ValidationError as error:
        fail(command, settings_failure(error))


def check_or_exit(command: str, settings: CommonSettings) -> None:
    """PING Redis once as `settings` say; a failure exits with one line (69, 77 or 78)."""
    try:
        check_redis(settings)
    except StartupFailure as failure:
        fail(command, failure)


def run_on_redis(
    command: str,
    settings: CommonSettings,
    work: Callable[[], Coroutine[Any, Any, T]],
    check: bool = True,
) -> T:
    """PING Redis as `settings` say (unless `check` is False: the caller did), then
    `asyncio.run(work())` and return its result.

    Exits (never returns) with one line when the PING fails, or when `work` raises a Redis
    error or an `OSError` (the archive's `ArchiveUnavailable` among them): 69, 77 or 78 as
    `classify` decides. Other exceptions propagate
    (they are bugs, not the storage).
    """
    from services.ports.errors import StoreError

    # psycopg's pool logs each failed connection to the archive; the one line says it
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    if check:
        check_or_exit(command, settings)
    try:
        return asyncio.run(work())
    except (StoreError, OSError) as error:
        fail(command, classify(error, settings))
