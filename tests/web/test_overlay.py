"""The stream overlay `/overlay/games/{id}`: a transparent page (stream software composites it
over the video), its URL parameters (theme, scale, lang, rows), read-only (no link, button or
form), updating live over the game's SSE when an event is appended while it is open."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import GAME, api_totals, axe_serious, open_page, seeded
from tests.web.builders import example, referee
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

TRANSPARENT = "rgba(0, 0, 0, 0)"


async def test_overlay_is_transparent_and_updates_on_an_appended_event(
    stack: Stack, browser: Browser
) -> None:
    await seeded(stack, 40)
    page = await open_page(browser, f"{stack.url}/overlay/games/{GAME}", "tv")
    before = api_totals((await stack.client.get(f"/games/{GAME}/standings")).json())
    rows = page.locator(".ov-player")
    await expect(rows).to_have_count(3)
    for player, total in before.items():
        await expect(page.locator(f'.ov-player[data-player="{player}"] .ov-total')).to_have_text(
            str(total)
        )
    backgrounds = await page.evaluate(
        "() => [document.documentElement, document.body].map(e => getComputedStyle(e).backgroundColor)"
    )
    assert backgrounds == [TRANSPARENT, TRANSPARENT]
    await expect(page.locator("#overlay")).to_have_attribute("data-theme", "dark")
    assert await page.locator("a, button, input, select, textarea, form").count() == 0

    fix = referee(example()[:40], {"player_id": "mira", "amount": 5})
    assert (await stack.post([fix])).status_code == 201  # appended while the page is open
    await expect(page.locator('.ov-player[data-player="mira"] .ov-total')).to_have_text(
        str(before["mira"] + 5)
    )
    assert await axe_serious(page) == []
    assert page.errors == []  # type: ignore[attr-defined]


async def test_overlay_parameters_theme_scale_lang_rows(stack: Stack, browser: Browser) -> None:
    await seeded(stack, 40)
    url = f"{stack.url}/overlay/games/{GAME}?theme=light&scale=2&lang=ru&rows=2"
    page = await open_page(browser, url, "tv")
    await expect(page.locator(".ov-player")).to_have_count(2)
    await expect(page.locator("#ov-status")).to_have_text("идёт")
    await expect(page.locator(".ov-prov").first).to_contain_text("если бы игра закончилась сейчас")
    overlay = page.locator("#overlay")
    await expect(overlay).to_have_attribute("data-theme", "light")
    assert await overlay.evaluate("e => getComputedStyle(e).fontSize") == "40px"  # 20 px x 2
    ink = await page.locator(".ov-name").first.evaluate("e => getComputedStyle(e).color")
    assert ink == "rgb(22, 22, 22)"  # the light theme's dark ink
    assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == TRANSPARENT

    clamped = await open_page(
        browser, f"{stack.url}/overlay/games/{GAME}?scale=99&rows=0&theme=pink", "tv"
    )
    await expect(clamped.locator(".ov-player")).to_have_count(1)  # rows at least 1
    await expect(clamped.locator("#overlay")).to_have_attribute("data-theme", "dark")
    assert await clamped.locator("#overlay").evaluate("e => getComputedStyle(e).fontSize") == (
        "80px"  # scale at most 4
    )
    missing = await stack.client.get("/overlay/games/no-such-game")
    assert missing.status_code == 404
