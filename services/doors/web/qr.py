"""The QR code of a game's phone view, drawn server-side as SVG with segno (a well-kept QR
library: ISO/IEC 18004, pure Python, no image stack).

`phone_url(base, game_id)` is the scoreboard page a phone opens (`{base}/games/{id}`, the id
percent-encoded); `qr_svg(url)` draws it: error correction level M (15 % of the code may be
lost: a screen's glare), the standard quiet zone of 4 modules, dark modules on white, no fixed
size (a `viewBox` only), so the page scales it to the room. Source: research note
docs/getting-started.md ("Convention TV screens: a QR code for
spectators"); segno's docs (`QRCode.save(kind="svg", omitsize=True)`).
"""

from __future__ import annotations

import io
from functools import lru_cache
from urllib.parse import quote

import segno

ERROR_LEVEL = "m"
BORDER = 4
"""The quiet zone in modules (ISO/IEC 18004 asks for 4)."""


def phone_url(base: str, game_id: str) -> str:
    """The phone view of `game_id` under `base` (scheme, host, port; a trailing "/" is
    dropped): `https://host/games/pen%20demo`."""
    return f"{base.rstrip('/')}/games/{quote(game_id, safe='')}"


@lru_cache(maxsize=256)
def qr_svg(url: str) -> bytes:
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
