"""The frame of the server-rendered league pages (the league's and the player's): the shared
layout (`services.doors.web.pages`) with the shared stylesheets, the bar with the brand and the
EN / RU links, then the page's `main` (`templates/server-page.html`).
"""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from services.doors.web.pages import Pages

PAGES = Pages(Path(__file__).parent / "templates")
"""The league pages' templates (and the shared not-found page)."""


def server_page(lang: str, title: str, langs: tuple[str, str], main: str) -> str:
    """A whole page: `title` (escaped by the caller) in the head, `langs` the EN and RU links'
    hrefs (already escaped for an attribute), `main` the page's body (markup)."""
    en, ru = langs
    return PAGES.render(
        "server-page.html",
        lang=lang,
        title=Markup(title),  # escaped by the caller
        langs=(Markup(en), Markup(ru)),
        main=Markup(main),
    )
