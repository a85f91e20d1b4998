"""The pages' shared layout (services/doors/web/pages.py): the head and the bar are written once,
in `base.html`; every page template renders to a whole page on it; a static page is served as a
file was (`ETag` of its body, `Last-Modified`, the status asked for), and the feature pages sit in
their feature's doors. Source: docs/tournaments.md (pages)."""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from hashlib import md5
from pathlib import Path

import pytest

from services.doors.web.pages import SHARED, Pages

ROOT = Path(__file__).parents[2]
TOURNAMENT = ROOT / "services" / "tournaments" / "doors" / "templates"
LEAGUE = ROOT / "services" / "leagues" / "doors" / "templates"
LAYOUTS = {"base.html", "tournament-layout.html", "tournament-phone.html", "server-page.html"}
PAGES = [
    (folder, path.name)
    for folder in (SHARED, TOURNAMENT, LEAGUE)
    for path in sorted(folder.glob("*.html"))
    if path.name not in LAYOUTS
]


def test_the_head_and_the_bar_are_written_once() -> None:
    sources = {
        p: p.read_text(encoding="utf-8")
        for d in (SHARED, TOURNAMENT, LEAGUE)
        for p in d.glob("*.html")
    }
    for marker in ('<meta charset="utf-8">', '<a class="brand" href="/">', "<!doctype html>"):
        holders = [p.name for p, text in sources.items() if marker in text]
        assert holders == ["base.html"], marker
    assert len(PAGES) == 15  # 5 game pages, 8 tournament pages, 2 league not-found pages


@pytest.mark.parametrize(("folder", "name"), PAGES, ids=[n for _, n in PAGES])
def test_every_page_renders_whole_on_the_layout(folder: Path, name: str) -> None:
    html = Pages(folder).render(name)
    assert html.startswith('<!doctype html>\n<html lang="en"')
    assert html.endswith("</body>\n</html>\n")
    assert html.count("<title>") == 1
    assert html.count('<script type="module" src="/static/') == 1
    assert "{%" not in html
    assert "{{" not in html


def test_a_static_page_is_served_as_a_file_was() -> None:
    pages = Pages(TOURNAMENT)
    page = pages.static("tournaments.html", headers={"Vary": "Accept"})
    body = bytes(page.body)
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["etag"] == f'"{md5(body, usedforsecurity=False).hexdigest()}"'
    assert page.headers["vary"] == "Accept"
    newest = max(p.stat().st_mtime for d in (TOURNAMENT, SHARED) for p in d.glob("*.html"))
    assert parsedate_to_datetime(page.headers["last-modified"]).timestamp() == int(newest)
    assert b'src="/static/tournaments/js/tlist.js"' in body
    missing = pages.static("notfound.html", 404)
    assert missing.status_code == 404
    assert b"<title>Game not found" in bytes(missing.body)


def test_the_server_rendered_league_frame_escapes_nothing_twice() -> None:
    from services.leagues.doors.web_page import server_page

    html = server_page("ru", "A &amp; B", ("/p?lang=en&amp;x=1", "/p?lang=ru"), "  <main>m</main>")
    assert '<html lang="ru">' in html
    assert "<title>A &amp; B · scoreledger</title>" in html
    assert '<a href="/p?lang=en&amp;x=1" lang="en">EN</a>' in html
    assert "  </header>\n  <main>m</main>\n</body>" in html
