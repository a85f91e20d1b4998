"""Shared set-up of the browser tests (their `browser` fixture, Debian's Chromium driven by
Playwright, is in the web conftest): the screen sizes, axe-core injected at test time,
overflow and totals helpers. Screenshots go to docs/screenshots/ only with
SCORELEDGER_SCREENSHOTS=docs."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from tests.web.builders import example
from tests.web.conftest import Stack
from tests.web.tourney import create

SIZES = {
    "phone": {"width": 390, "height": 844},
    "small-phone": {"width": 360, "height": 740},
    "laptop": {"width": 1366, "height": 768},
    "tv": {"width": 1920, "height": 1080},
    "4k": {"width": 3840, "height": 2160},
    "720p": {"width": 1280, "height": 720},
    "1080p": {"width": 1920, "height": 1080},
}
# The README's screenshots are refreshed only on request (SCORELEDGER_SCREENSHOTS=docs), so a
# plain test run leaves the work tree clean; otherwise they go to a temporary folder.
TV_SCREENS = ("720p", "1080p", "4k")
"""The room screens a tournament or game TV view must fit without scrolling."""
SHOTS = (
    Path(__file__).parents[2] / "docs" / "screenshots"
    if os.environ.get("SCORELEDGER_SCREENSHOTS") == "docs"
    else Path(tempfile.gettempdir()) / "scoreledger-screenshots"
)
SHOTS.mkdir(parents=True, exist_ok=True)
DOC_SHOTS = {
    "tv-tv",
    "scoreboard-phone",
    "scoreboard-laptop",
    "scoreboard-ru",
    "flow-phone-ru",
    "games-list-laptop",
    # docs/tournaments-in-the-browser.md
    *(
        f"{page}-{size}"
        for size in ("phone", "tv")
        for page in (
            "tournaments-list",
            "tournament-new",
            "tournament-desk-new",
            "tournament-desk-finished",
            "tournament-podium",
            "tournament-desk-club",
            "tournament-slips-print",
            "tournament-tv-clock",
            "player-page",
            "player-leagues",
        )
    ),
    "tournament-report-phone",
    "tournament-final-phone-en",
    "tournament-final-phone-ru",
}
"""The screenshots the README and the docs show; the others always go to the temporary folder."""
TMP_SHOTS = Path(tempfile.gettempdir()) / "scoreledger-screenshots"
TMP_SHOTS.mkdir(parents=True, exist_ok=True)


def shot_path(name: str) -> Path:
    """Where the screenshot `name` goes (docs/screenshots/ only for README ones, on request)."""
    return (SHOTS if name in DOC_SHOTS else TMP_SHOTS) / f"{name}.png"


AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
GAME = "pen-demo-3p"


async def open_page(
    browser: Browser, url: str, size: str = "laptop", locale: str = "en-US"
) -> Page:
    """A new page at `url` in a fresh context of the named size; `page.errors` collects
    uncaught page errors."""
    context = await browser.new_context(locale=locale, viewport=SIZES[size])  # type: ignore[arg-type]
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(url)
    return page


async def cup_desk(stack: Stack, browser: Browser, rounds: int) -> Page:
    """Tournament `cup` created with 8 players and `rounds` rounds, its desk opened (English,
    laptop size, no organiser token entered yet)."""
    await create(stack.client, "cup", 8, rounds=rounds)
    return await open_page(browser, f"{stack.url}/tournaments/cup/desk?lang=en", "laptop")


async def seeded(stack: Stack, upto: int) -> None:
    """The example game's first `upto` events, posted through ingest (keeps the token)."""
    response = await stack.post(list(example()[:upto]))
    assert response.status_code == 201, response.text
    await stack.wait_projected(GAME, upto)


def total_of(page: Page, player: str) -> Any:
    """The visible total of `player` (the table on wide screens, the card on a phone)."""
    return page.locator(f'[data-player="{player}"] .total-value:visible')


async def expect_totals(page: Page, totals: dict[str, int]) -> None:
    """Wait until the page shows exactly these totals."""
    for player, total in totals.items():
        await expect(total_of(page, player)).to_have_text(str(total))


def api_totals(body: dict[str, Any]) -> dict[str, int]:
    return {p["player_id"]: p["total"] for p in body["players"]}


async def no_horizontal_overflow(page: Page) -> None:
    """The page never scrolls sideways (the document is no wider than the viewport)."""
    width = await page.evaluate("document.documentElement.scrollWidth")
    viewport = await page.evaluate("window.innerWidth")
    assert width <= viewport, f"page is {width} px wide in a {viewport} px viewport"


async def fits_and_is_accessible(page: Page) -> None:
    """The page never scrolls sideways (`no_horizontal_overflow`) and axe-core finds no
    serious or critical violation on it (`axe_serious`)."""
    await no_horizontal_overflow(page)
    assert await axe_serious(page) == []


async def axe_serious(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page (WCAG 2 A/AA rules)."""
    if not AXE.exists():
        pytest.fail(f"axe-core missing: npm ci --prefix {AXE.parents[2]}")
    await page.add_script_tag(path=str(AXE))
    result = await page.evaluate(
        "async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']}))"
        ".violations.filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => ({id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target)}))"
    )
    return list(result)
