"""The checks of values the settings parse from the environment: integration names
(`integration_names`), Redis URLs (`redis_url_checked`) and trusted proxy networks
(`proxy_networks`), each raising a `ValueError` that names what is wrong."""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import parse_qsl, urlparse

INTEGRATION_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
"""An integration's name (`IngestSettings.inbox_integrations`): it becomes a key suffix
(`sl:inbox:<name>`) and an ACL user name (`integration-<name>`), so no `:`, `*`, space or
upper case (deploy/scripts/redis-acl.sh checks the same)."""

MAX_INTEGRATIONS = 64
"""Most integrations with a stream of their own: each costs ingest one subscriber (a blocking
read) and one reclaimer per replica."""


def integration_names(value: Any) -> tuple[str, ...]:
    """The integration names of `value`: text split at commas, spaces, tabs and newlines (the
    environment's `a,b c`; the separators of deploy/scripts/redis-acl.sh, so a list that one
    refuses, e.g. with a CRLF line's carriage return, the other refuses too), or a sequence of
    names, in their order.

    Raises:
        ValueError: a name that is not `INTEGRATION_NAME`, a name listed twice, or more than
            `MAX_INTEGRATIONS` names (docs/decisions/0019-hostile-input-at-every-door.md (hostile integrations)).
    """
    names = (
        tuple(n for n in re.split(r"[ \t\n,]+", value) if n) if isinstance(value, str) else value
    )
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise ValueError("a list of integration names (comma- or space-separated)")
    if len(names) > MAX_INTEGRATIONS:
        raise ValueError(f"{len(names)} integrations listed, at most {MAX_INTEGRATIONS}")
    for name in names:
        if not INTEGRATION_NAME.fullmatch(name):
            raise ValueError(f"integration name {name[:40]!r} is not [a-z0-9][a-z0-9-]{{0,31}}")
        if names.count(name) > 1:
            raise ValueError(f"integration name {name!r} is listed twice")
    return tuple(names)


REDIS_URL_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
"""redis-py's own schemes (`redis.asyncio.connection.parse_url`) and the cluster ones
`services/adapters/redis/connect.py` adds."""

REDIS_URL_OPTIONS = frozenset(
    {
        # parsed by redis-py 8 (`URL_QUERY_ARGUMENT_PARSERS` in redis/asyncio/connection.py)
        "db",
        "socket_timeout",
        "socket_connect_timeout",
        "socket_read_size",
        "socket_keepalive",
        "retry_on_timeout",
        "max_connections",
        "health_check_interval",
        "ssl_check_hostname",
        "ssl_include_verify_flags",
        "ssl_exclude_verify_flags",
        "ssl_min_version",
        "timeout",
        "protocol",
        "legacy_responses",
        # passed through as text to the connection, which takes them as text
        "username",
        "password",
        "client_name",
        "lib_name",
        "lib_version",
        "ssl_cert_reqs",
        "ssl_ca_certs",
        "ssl_ca_path",
        "ssl_certfile",
        "ssl_keyfile",
    }
)
"""The query options a Redis URL may carry. redis-py passes any other `?name=` to the
connection's constructor, which fails with a `TypeError` only when the first command
connects (reported as "cannot reach Redis"); an unknown one is refused here, up front."""


def redis_url_checked(url: str) -> str:
    """`url` if its scheme is a Redis one and its query options are all `REDIS_URL_OPTIONS`.

    Raises:
        ValueError: naming the scheme or the unknown options (never a value: a query may carry
            a password).
    """
    scheme, sep, _ = url.partition("://")
    if not sep or scheme not in REDIS_URL_SCHEMES:
        raise ValueError(f"the scheme must be one of {', '.join(REDIS_URL_SCHEMES)}")
    # the query as redis-py reads it (urlparse: after the first '?' past the host)
    unknown = sorted({name for name, _ in parse_qsl(urlparse(url).query)} - REDIS_URL_OPTIONS)
    if unknown:
        names = ", ".join(repr(name[:40]) for name in unknown[:5])
        raise ValueError(
            f"unknown query option {names}; known: {', '.join(sorted(REDIS_URL_OPTIONS))}"
        )
    return url


def proxy_networks(value: Any) -> tuple[str, ...]:
    """The proxy addresses of `value` (text split at commas and spaces, or a sequence), each
    an IP address or network in CIDR notation, as written.

    Raises:
        ValueError: an entry that is neither (`*` included: trusting every peer would let any
            client choose its own address).
    """
    items = (
        tuple(n for n in re.split(r"[ \t\n,]+", value) if n) if isinstance(value, str) else value
    )
    if not isinstance(items, list | tuple) or not all(isinstance(n, str) for n in items):
        raise ValueError("a list of proxy addresses or networks (comma- or space-separated)")
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{item[:60]!r} is not an IP address or network") from None
    return tuple(items)
