"""A finished tournament in a real Chromium: the room screen shows the podium and the winner
in place of the tables (no scroll at 1920x1080, no sideways scroll at 390 px); a table with a
result shows the result's winner, never "leads:"; the desk names the winner, offers the
standings' exports and no drops; the phone view gives the player's final place in a sentence
(EN and RU). axe finds no serious violation. Source: docs/tournaments-in-the-browser.md."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import (
    axe_serious,
    fits_and_is_accessible,
    no_horizontal_overflow,
    open_page,
    shot_path,
)
from tests.web.conftest import Stack
from tests.web.tourney import AUTH, create, seat

pytestmark = [pytest.mark.browser, pytest.mark.redis]


def champion_first(players: list[str]) -> list[dict[str, Any]]:
    """p03 first wherever seated, the others in seat order after; scores 49, 48, ..."""
    order = sorted(players, key=lambda p: p != "p03")
    return [{"player_id": p, "place": i, "score": 50 - i} for i, p in enumerate(order, 1)]


async def rule(
    client: httpx.AsyncClient, action: str, round_: int, table: int, players: list[str]
) -> None:
    body: dict[str, Any] = {"action": action, "round": round_, "by": "judge"}
    if action == "report":
        body["results"] = champion_first(players)
    r = await client.post(f"/tournaments/cup/tables/{table}/result", json=body, headers=AUTH)
    assert r.status_code == 200, r.text


async def play_out(stack: Stack) -> None:
    """8 players, 2 rounds, every table decided with p03 first: 7 + 7 = 14 points."""
    await create(stack.client, "cup", 8, rounds=2)
    for round_ in (1, 2):
        tables = await seat(stack.client, "cup")
        for n, players in enumerate(tables, 1):
            await rule(stack.client, "report", round_, n, players)
            await rule(stack.client, "approve", round_, n, players)


async def test_a_reported_table_shows_its_winner_never_a_leader(
    stack: Stack, browser: Browser
) -> None:
    await create(stack.client, "cup", 8, rounds=2)
    tables = await seat(stack.client, "cup")
    page = await open_page(browser, f"{stack.url}/tv/tournaments/cup?lang=en", "tv")
    line = page.locator('.ttv-table[data-table="1"] .ttv-leader')
    await expect(line).to_have_text("")  # its game not scored yet: everyone level, nobody leads
    await rule(stack.client, "report", 1, 1, tables[0])
    # p03 at table 1 finishes first on 49, else seat 1 does on 49
    winner = "Player 3" if "p03" in tables[0] else f"Player {int(tables[0][0][1:])}"
    await expect(line).to_have_text(f"won: {winner} 49")
    await expect(page.locator("#ttv-podium")).to_be_hidden()
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", ["tv", "phone"])
async def test_the_room_screen_shows_the_podium_once_finished(
    stack: Stack, browser: Browser, size: str
) -> None:
    await play_out(stack)
    info = (await stack.client.get("/tournaments/cup")).json()
    assert info["status"] == "finished"
    assert info["winner"]["player_id"] == "p03"
    page = await open_page(browser, f"{stack.url}/tv/tournaments/cup?lang=en", size)
    await expect(page.locator("#ttv-podium")).to_be_visible()
    await expect(page.locator("#ttv-tables")).to_be_hidden()
    await expect(page.locator("#ttv-round")).to_have_text("Finished")
    await expect(page.locator("#ttv-winner")).to_have_text("Player 3")
    steps = page.locator("#ttv-podium-list li")
    await expect(steps).to_have_count(3)
    await expect(steps.first).to_have_attribute("data-player", "p03")
    await expect(steps.first.locator(".ttv-pts")).to_have_text("14 pts")
    await no_horizontal_overflow(page)
    if size == "tv":
        height = await page.evaluate("document.documentElement.scrollHeight")
        assert height <= 1080, height  # one screen, no scroll
        assert await axe_serious(page) == []
    await page.screenshot(path=shot_path(f"tournament-podium-{size}"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_the_desk_offers_exports_and_no_drops_once_finished(
    stack: Stack, browser: Browser
) -> None:
    await play_out(stack)
    page = await open_page(browser, f"{stack.url}/tournaments/cup/desk?lang=en", "laptop")
    await expect(page.locator("#tn-end")).to_be_visible()
    await expect(page.locator("#tn-winner")).to_have_text("Player 3")
    await expect(page.locator("#tn-players tbody tr")).to_have_count(8)
    await expect(page.locator("#tn-players button")).to_have_count(0)
    csv_link = page.locator("#tn-export-csv")
    await expect(csv_link).to_have_attribute("href", "/tournaments/cup/standings.csv")
    csv = await stack.client.get("/tournaments/cup/standings.csv")
    assert csv.status_code == 200
    assert csv.text.splitlines()[1].startswith("1,p03,Player 3,14.00")
    await fits_and_is_accessible(page)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_phone_view_gives_the_final_place(
    stack: Stack, browser: Browser, lang: str
) -> None:
    await play_out(stack)
    url = f"{stack.url}/tournaments/cup/me?player=p03&lang={lang}"
    page = await open_page(browser, url, "phone")
    final = (
        "Player 3 finished in place 1 of 8, with 14 points."
        if lang == "en"
        else "Player 3: 1-е место из 8, очков: 14."
    )
    await expect(page.locator("#tn-me-explain")).to_contain_text(final)
    label = "Final place" if lang == "en" else "Итоговое место"
    await expect(page.locator("#tn-me-standing-label")).to_have_text(label)
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"tournament-final-phone-{lang}"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]
