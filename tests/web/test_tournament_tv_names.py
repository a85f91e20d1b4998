"""The room screen's table cards show whole names on a laptop and a TV: with two tables of four
(8 players, "Player 1".."Player 8", two-digit points after two rounds, the third seated), no seat's name is cut
short with an ellipsis at 1366 or 1920 px (a demo showed "Das…" for Dasha beside "14 pts")."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import open_page
from tests.web.conftest import Stack
from tests.web.tourney import approve, create, report, seat

pytestmark = [pytest.mark.browser, pytest.mark.redis]

CUT = """() => [...document.querySelectorAll('#ttv-tables .ttv-seats .ttv-pname')]
  .filter((n) => n.scrollWidth > n.clientWidth).map((n) => n.textContent)"""


@pytest.mark.parametrize("size", ["laptop", "tv"])
async def test_whole_names_at_two_tables(stack: Stack, browser: Browser, size: str) -> None:
    await create(stack.client, "names", 8, rounds=3)
    for round_ in (1, 2):
        for number, players in enumerate(await seat(stack.client, "names"), 1):
            await report(stack.client, "names", round_, number, players)
            await approve(stack.client, "names", round_, number)
    await seat(stack.client, "names")
    page = await open_page(browser, f"{stack.url}/tv/tournaments/names?lang=en", size)
    seats = page.locator("#ttv-tables .ttv-seats .ttv-pname")
    await expect(seats).to_have_count(8)
    points = await page.locator("#ttv-tables .ttv-pts").all_text_contents()
    assert any(len(p.split()[0]) >= 2 for p in points), points  # a two-digit figure is there
    assert await page.evaluate(CUT) == []
    assert page.errors == []  # type: ignore[attr-defined]
