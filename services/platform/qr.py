"""The QR code of a game's phone view, drawn server-side as SVG with segno (a well-kept QR
library: ISO/IEC 18004, pure Python, no image stack).

`phone_url(base, game_id)` is the scoreboard page a phone opens (`{base}/games/{id}`, the id
percent-encoded); `qr_svg(url)` draws it: error correction level M (15 % of the code may be
lost: a screen's glare), the standard quiet zone of 4 modules, dark modules on white, no fixed
size (a `viewBox` only), so the page scales it to the room. Source: research note
docs/getting-started.md ("Convention TV screens: a QR code for
spectators"); segno's docs (`QRCode.save(kind="svg", omitsize=True)`).

Without `SCORELEDGER_PUBLIC_URL` the base is the origin the request came to, i.e. its `Host`
header, which any client chooses: `qr_base` accepts only a host name of at most 253 characters
(RFC 1035: the longest DNS name), an IPv4 or bracketed IPv6 literal, with an optional port,
and refuses anything else (`QrHostRefused`, HTTP 400 `qr.host`), so no Host can overflow a QR
code. A code costs 30-65 ms of pure-Python segno work for such a URL, so `CODES` draws it in
one worker thread, off the event loop, keeps at most `CACHE_ITEMS` of them (least recently
used dropped), and lets at most `MAX_WAITING` requests wait for a drawing (`QrBusy`, HTTP 503
`qr.busy`, past it).
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

import segno
from fastapi import Request, Response

from services.platform.problems import ProblemResponse, problem
from services.runtime.sizedcache import ByteLRU

ERROR_LEVEL = "m"
BORDER = 4
"""The quiet zone in modules (ISO/IEC 18004 asks for 4)."""


def phone_url(base: str, game_id: str) -> str:
    """The phone view of `game_id` under `base` (scheme, host, port; a trailing "/" is
    dropped): `https://host/games/pen%20demo`."""
    return f"{base.rstrip('/')}/games/{quote(game_id, safe='')}"


MAX_HOST = 253 + 8
"""The longest `Host` accepted: a DNS name (253 characters) and `:` with a port."""
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(
    rf"(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]{{2,45}}\])(?::[0-9]{{1,5}})?",
    re.ASCII,
)
CACHE_ITEMS = 256
CACHE_BYTES = 16 * 1024 * 1024
MAX_WAITING = 16
"""Requests that may wait for a code being drawn; the next one gets 503 `qr.busy`."""


class QrHostRefused(ValueError):
    """The request's `Host` is no host name (or too long) to put in a QR code: 400 `qr.host`."""


class QrBusy(RuntimeError):
    """`MAX_WAITING` requests wait for a QR code already: 503 `qr.busy`."""


def qr_base(public_url: object | None, base_url: object, host: str | None) -> str:
    """The base of a QR code's URL: `public_url` when set, else `base_url` (the origin the
    request came to) when its `host` header is a host name, an IP literal and an optional
    port, at most `MAX_HOST` characters. Raises `QrHostRefused` otherwise."""
    if public_url:
        return str(public_url)
    if host is None or len(host) > MAX_HOST or not _HOST.fullmatch(host):
        raise QrHostRefused(
            f"the Host header is not a host name of at most {MAX_HOST} characters "
            "(set SCORELEDGER_PUBLIC_URL to the address phones reach)"
        )
    return str(base_url)


class QrCodes:
    """QR codes drawn off the event loop, one at a time (`draw_svg` in one worker thread),
    the last `CACHE_ITEMS` kept (at most `CACHE_BYTES`). Shared by every route and event loop
    of the process; used from event loop threads only (the cache is not locked)."""

    def __init__(self) -> None:
        self.cache: ByteLRU[str, bytes] = ByteLRU(CACHE_BYTES, len, CACHE_ITEMS)
        self.waiting = 0
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="qr")

    async def svg(self, url: str) -> bytes:
        """`url` as a QR code in SVG (`draw_svg`), from the cache or drawn now. Raises
        `QrBusy` when `MAX_WAITING` requests wait already, `segno.DataOverflowError` beyond
        a QR code's capacity."""
        kept = self.cache.get(url)
        if kept is not None:
            return kept
        if self.waiting >= MAX_WAITING:
            raise QrBusy(f"{MAX_WAITING} QR codes are being drawn; try again in a second")
        self.waiting += 1
        try:
            drawn = await asyncio.get_running_loop().run_in_executor(self._worker, _draw, url)
        finally:
            self.waiting -= 1
        self.cache.put(url, drawn)
        return drawn


def _draw(url: str) -> bytes:
    """`draw_svg`, looked up when called (a test replaces it to see where it runs)."""
    return draw_svg(url)


CODES = QrCodes()


async def qr_response(
    public_url: object | None, request: Request, url_of: Callable[[str], str]
) -> Response:
    """The QR code (SVG, cached 300 s by clients) of `url_of(base)`, `base` from `qr_base`;
    the URL also in `X-QR-URL`. A refused Host: 400 `qr.host` (field `Host`); too many
    drawings waiting: 503 `qr.busy` with `Retry-After: 1`."""
    try:
        url = url_of(qr_base(public_url, request.base_url, request.headers.get("host")))
        svg = await CODES.svg(url)
    except QrHostRefused as refused:
        return ProblemResponse(problem(400, "qr.host", "Host", str(refused)))
    except QrBusy as busy:
        return ProblemResponse(problem(503, "qr.busy", None, str(busy)), {"Retry-After": "1"})
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Cache-Control": "max-age=300", "X-QR-URL": url},
    )


def draw_svg(url: str) -> bytes:
    """`url` as a QR code in SVG (UTF-8 bytes; a `viewBox`, no width or height; the URL in its
    `<title>`). Raises `segno.DataOverflowError` beyond a QR code's capacity (2,953 bytes)."""
    code = segno.make(url, error=ERROR_LEVEL, micro=False, boost_error=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        border=BORDER,
        dark="#000",
        light="#fff",
        omitsize=True,
        title=url,
        svgclass="qr",
        lineclass=None,
    )
    return out.getvalue()
