"""The player page in a browser (docs/tournaments-in-the-browser.md): a club tournament of 8
players over 2 rounds, every table approved, added to a league; the league page's name opens
the player's page, which shows the tournament with the player's place, both games and the
rating after each; the room screen and the desk link the league. EN at 390 and 1920 px (no sideways scroll, axe clean, screenshots) and RU."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import fits_and_is_accessible, open_page, shot_path
from tests.web.conftest import Stack
from tests.web.tourney import AUTH, approve, create, report, seat

pytestmark = [pytest.mark.browser, pytest.mark.redis]


async def _league(stack: Stack) -> None:
    """Tournament `night` (8 players, 2 rounds, all approved) in league `club`."""
    await create(stack.client, "night", 8, rounds=2)
    for round_ in (1, 2):
        for number, players in enumerate(await seat(stack.client, "night"), 1):
            await report(stack.client, "night", round_, number, players)
            await approve(stack.client, "night", round_, number)
    league = {"league_id": "club", "title": "Thursday club", "game": "penumbra"}
    made = await stack.client.post("/leagues", json=league, headers=AUTH)
    assert made.status_code == 201, made.text
    body = {"tournament_id": "night"}
    added = await stack.client.post("/leagues/club/tournaments", json=body, headers=AUTH)
    assert added.status_code == 200, added.text


@pytest.mark.parametrize("size", ["phone", "tv"])
async def test_the_player_page_from_the_league_page(
    stack: Stack, browser: Browser, size: str
) -> None:
    await _league(stack)
    record = (
        await stack.client.get("/players/p01?league=club", headers={"Accept": "application/json"})
    ).json()
    page = await open_page(browser, f"{stack.url}/leagues/club/page?lang=en", size)
    await page.get_by_role("link", name="Player 1", exact=True).click()
    await expect(page.locator("#player-name")).to_have_text("Player 1")
    [tournament] = record["tournaments"]
    place = f"{tournament['place']} / 8"
    await expect(page.locator("#player-tournaments tbody tr")).to_have_count(1)
    await expect(page.locator("#player-tournaments tbody td").nth(1)).to_have_text(place)
    await expect(page.locator("#player-games tbody tr")).to_have_count(2)
    await expect(page.locator("#player-rating tbody tr")).to_have_count(2)
    now = f"{record['current']['ordinal']:.1f}"
    await expect(page.locator("#player-now")).to_contain_text(f"Rating now: {now}")
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"player-page-{size}"), full_page=True)
    await page.get_by_role("link", name="RU", exact=True).click()
    await expect(page.locator("#player-now")).to_contain_text(f"Рейтинг сейчас: {now}")
    await fits_and_is_accessible(page)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", ["phone", "tv"])
async def test_the_room_screen_and_desk_link_the_leagues_holding_it(
    stack: Stack, browser: Browser, size: str
) -> None:
    await _league(stack)
    page = await open_page(browser, f"{stack.url}/tv/tournaments/night?lang=en", size)
    link = page.locator("#ttv-leagues a")
    await expect(link).to_have_text("Thursday club")
    await expect(link).to_have_attribute("href", "/leagues/club/page")
    await expect(page.locator("#ttv-leagues")).to_contain_text("Leagues: Thursday club")
    await fits_and_is_accessible(page)
    ru = await open_page(browser, f"{stack.url}/tv/tournaments/night?lang=ru", size)
    await expect(ru.locator("#ttv-leagues")).to_contain_text("Лиги: Thursday club")
    desk = await open_page(browser, f"{stack.url}/tournaments/night/desk?lang=en", size)
    await expect(desk.locator("#tn-leagues a")).to_have_attribute("href", "/leagues/club/page")
    await expect(desk.locator("#tn-leagues")).to_contain_text("Leagues: Thursday club")
    await fits_and_is_accessible(desk)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", ["phone", "tv"])
async def test_names_open_the_players_pages_across_leagues(
    stack: Stack, browser: Browser, size: str
) -> None:
    await _league(stack)
    town = {"league_id": "town", "title": "Town <b>league</b>", "game": "penumbra"}
    assert (await stack.client.post("/leagues", json=town, headers=AUTH)).status_code == 201
    body = {"tournament_id": "night"}
    added = await stack.client.post("/leagues/town/tournaments", json=body, headers=AUTH)
    assert added.status_code == 200, added.text
    standings = (await stack.client.get("/tournaments/night/standings")).json()["players"]
    first = standings[0]["player_id"]
    # the room screen's and the desk's standings link each name to the first league's page
    tv = await open_page(browser, f"{stack.url}/tv/tournaments/night?lang=en", size)
    names = tv.locator("#ttv-standings a.ttv-pname")
    await expect(names).to_have_count(8)
    await expect(names.first).to_have_attribute("href", f"/players/{first}?league=club&lang=en")
    await fits_and_is_accessible(tv)
    desk = await open_page(browser, f"{stack.url}/tournaments/night/desk?lang=ru", size)
    await expect(desk.locator("#tn-players tbody a")).to_have_count(8)
    href = f"/players/{first}?league=club&lang=ru"
    await expect(desk.locator("#tn-players tbody a").first).to_have_attribute("href", href)
    # the phone view: the player's own page, then every league naming them
    phone = await open_page(browser, f"{stack.url}/tournaments/night/me?player=p01&lang=en", size)
    await expect(phone.locator("#tn-standings a.tn-name")).to_have_count(8)
    mine = phone.locator("#tn-me-record-link")
    await expect(mine).to_have_text("My games and rating in Thursday club")
    await fits_and_is_accessible(phone)
    await mine.click()
    await expect(phone.locator("#player-name")).to_have_text("Player 1")
    chart = phone.locator("#player-chart")
    await expect(chart).to_be_visible()
    await expect(chart.locator("circle")).to_have_count(3)  # the start and two games
    box = await chart.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= phone.viewport_size["width"]  # type: ignore[index]
    await fits_and_is_accessible(phone)
    await phone.locator("#player-all").click()
    rows = phone.locator("#player-leagues tbody tr")
    await expect(rows).to_have_count(2)
    await expect(rows.nth(1).locator("a")).to_have_text("Town <b>league</b>")
    await fits_and_is_accessible(phone)
    await phone.screenshot(path=shot_path(f"player-leagues-{size}"), full_page=True)
    await phone.get_by_role("link", name="RU", exact=True).click()
    await expect(phone.locator("#player-leagues thead th").first).to_have_text("Лига")
    await fits_and_is_accessible(phone)
    ru = await open_page(browser, f"{stack.url}/tournaments/night/me?player=p01&lang=ru", size)
    await expect(ru.locator("#tn-me-record-link")).to_have_text(
        "Мои партии и рейтинг: Thursday club"
    )
    for page in (tv, desk, phone, ru):
        assert page.errors == []  # type: ignore[attr-defined]
