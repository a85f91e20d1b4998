"""`WebhookTransport` over httpx: one client (connection pool) per process, every request
bounded by `timeout_s` as a whole (connect, send and the answer's headers together: httpx's own
timeout is per read, and a receiver sending a byte now and then would hold it forever), no
redirects followed (a 3xx is an answer, and fails the delivery, so no redirect leads anywhere),
the answer's body never read past its headers. Unless `allow_private`
(`SCORELEDGER_WEBHOOK_ALLOW_PRIVATE`), a target whose host is or resolves to a loopback,
private or link-local address (`services.webhooks.ports.non_public`) is not contacted: a
`TransportError` naming `webhook.private_address`. The name is resolved just before the request
and resolved again by httpx, so a DNS answer that changes in between (rebinding) is not caught
here; a deployment that must exclude it sends webhooks through an egress proxy."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from services.webhooks.ports import Answer, TransportError, non_public, non_public_host


def retry_after_s(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds asked by a `Retry-After` header (RFC 9110 §10.2.3: delay-seconds or an
    HTTP-date), at least 0; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class HttpxTransport:
    """POSTs with `httpx.AsyncClient`, each within `timeout_s` seconds from start to the
    answer's headers; `aclose()` it at the end."""

    def __init__(
        self,
        timeout_s: float,
        client: httpx.AsyncClient | None = None,
        allow_private: bool = False,
    ) -> None:
        self.timeout_s = timeout_s
        self.allow_private = allow_private
        self.client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s),
            follow_redirects=False,
            headers={"user-agent": "scoreledger-webhooks"},
        )

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        """One POST; the answer's status and `Retry-After`. Raises `TransportError` past the
        whole-request deadline (`timeout_s`), or on a timeout or a connection, protocol or URL
        error."""
        try:
            async with asyncio.timeout(self.timeout_s):
                if not self.allow_private:
                    await _check_target(url)
                async with self.client.stream(
                    "POST", url, content=body, headers=dict(headers)
                ) as r:
                    return Answer(r.status_code, retry_after_s(r.headers.get("retry-after")))
        except TimeoutError:
            raise TransportError(
                f"no answer within the whole-request deadline of {self.timeout_s:g} s"
            ) from None
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise TransportError(f"{type(error).__name__}: {error}"[:300]) from None

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()


async def _check_target(url: str) -> None:
    """Raise `TransportError` when `url`'s host is a local name or any address it resolves to
    is non-public (a DNS failure too: the request could not be made)."""
    try:
        parts = httpx.URL(url)
    except httpx.InvalidURL as error:
        raise TransportError(f"InvalidURL: {error}"[:300]) from None
    host = parts.host
    refused = TransportError(f"webhook.private_address: {host[:100]} is not a public address")
    if non_public_host(host):
        raise refused
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise TransportError(f"ConnectError: {host[:100]}: {error}"[:300]) from None
    for *_, address in found:
        if non_public(ipaddress.ip_address(str(address[0]).partition("%")[0])):
            raise refused
