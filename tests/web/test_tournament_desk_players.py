"""The desk adds a player by name: registered before round 1 is seated, a late join (seated
from the next round) after; the new player gets the next free id (`p09` after `p01..p08`).
In Chromium, EN at 1366 px. Source: docs/tournaments-in-the-browser.md."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import cup_desk, fits_and_is_accessible
from tests.web.conftest import Stack
from tests.web.tourney import TOKEN, seat

pytestmark = [pytest.mark.browser, pytest.mark.redis]


async def test_the_desk_registers_then_adds_late(stack: Stack, browser: Browser) -> None:
    page = await cup_desk(stack, browser, rounds=2)
    await page.get_by_role("textbox", name="Organiser token").fill(TOKEN)
    await page.locator("#tn-token-form button").click()
    await page.get_by_role("textbox", name="New player's name").fill("Ivo")
    await page.get_by_role("button", name="Add player").click()
    await expect(page.locator("#tn-msg")).to_have_text("Added: Ivo")
    await expect(page.locator("#tn-players tbody tr")).to_have_count(9)
    await seat(stack.client, "cup")
    await page.get_by_role("textbox", name="New player's name").fill("Zoe")
    await page.get_by_role("button", name="Add player").click()
    await expect(page.locator("#tn-msg")).to_have_text("Added: Zoe")
    players = (await stack.client.get("/tournaments/cup")).json()["players"]
    added = {p["player_id"]: (p["name"], p["from_round"]) for p in players[8:]}
    assert added == {"p09": ("Ivo", 1), "p10": ("Zoe", 2)}
    await fits_and_is_accessible(page)
    assert page.errors == []  # type: ignore[attr-defined]
