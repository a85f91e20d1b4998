"""A club night from the browser (docs/tournaments-in-the-browser.md): the games list links to
the tournaments; the form "New tournament" creates one of 8 players and lands on the desk,
which shows the organiser token once and keeps it in the field "Organiser token"; the desk
seats round 1, each table reports from its phone link (the desk's, the table's key in the
fragment) and a second player confirms, the desk approves; round 2 likewise; the tournament is `finished` with a `winner`, the room screen shows the podium and
`GET /tournaments` lists it. EN pages at 390 and 1920 px: no sideways scroll, axe clean."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from tests.web.browser import (
    axe_serious,
    fits_and_is_accessible,
    no_horizontal_overflow,
    open_page,
    shot_path,
)
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

NAMES = ["Alma", "Boris", "Chen", "Dana", "Emil", "Fay", "Gleb", "<b>Hana</b>"]


async def fill_the_form(page: Page) -> None:
    await page.get_by_label("Title", exact=True).fill("Friday cup")
    await page.get_by_label("Game", exact=True).select_option("penumbra")
    await page.get_by_label("Rounds", exact=True).fill("2")
    await page.get_by_label("Players", exact=True).fill("\n".join(NAMES) + "\n\n")
    await page.get_by_label("Scoring", exact=True).select_option("placement")
    await page.get_by_label("When players do not divide into tables of 4").select_option("threes")


async def report_from_the_phone(browser: Browser, link: str, players: list[str]) -> None:
    """One phone reports the table (seat order as the finishing order: 40, 37, 34, ...), a
    second confirms as the player in seat 2."""
    phone = await open_page(browser, link, "phone")
    await expect(phone.locator("#tn-report-rows tbody tr")).to_have_count(len(players))
    for i, pid in enumerate(players, 1):
        row = phone.locator(f'#tn-report-rows tr[data-player="{pid}"]')
        await row.locator("select").select_option(str(i))
        await row.locator("input").fill(str(43 - 3 * i))
    await phone.locator("#tn-report-by").select_option(players[0])
    await no_horizontal_overflow(phone)
    await phone.screenshot(path=shot_path("tournament-report-phone"), full_page=True)
    await phone.get_by_role("button", name="Report this result").click()
    await expect(phone.locator("#tn-msg")).to_contain_text("Reported.")
    await expect(phone.locator("#tn-report")).to_be_hidden()  # reported: the result, not the form
    other = await open_page(browser, link, "phone")
    await expect(other.locator("#tn-confirm")).to_be_visible()
    await other.locator("#tn-confirm-who").select_option(players[1])
    await other.get_by_role("button", name="Confirm this result").click()
    await expect(other.locator("#tn-msg")).to_contain_text("Confirmed:")
    await expect(phone.locator("#tn-reported-confirmed")).to_contain_text("Confirmed by")
    assert await axe_serious(phone) == []
    assert phone.errors == []  # type: ignore[attr-defined]
    assert other.errors == []  # type: ignore[attr-defined]
    await phone.context.close()
    await other.context.close()


async def play_round(stack: Stack, browser: Browser, page: Page, tid: str, round_: int) -> None:
    """Seat from the desk; each table reports from its phone link (taken from the desk) and
    is confirmed by a second player; the desk approves each table."""
    await page.get_by_role("button", name="Seat the next round").click()
    await expect(page.locator("#tn-msg")).to_have_text(f"Seated round {round_}: 2 tables")
    state: dict[str, Any] = (await stack.client.get(f"/tournaments/{tid}")).json()
    links = page.locator(f'#tn-links-list a[href*="#round={round_}&key="]')
    await expect(links).to_have_count(2)
    for table in state["rounds"][round_ - 1]["tables"]:
        number = table["table"]
        href = await page.locator(f'#tn-links-list a[data-table="{number}"]').get_attribute("href")
        assert href is not None
        assert f"/tables/{number}/report#round={round_}&key=" in href
        await report_from_the_phone(browser, stack.url + href, table["players"])
        row = page.locator(f'#tn-tables tr[data-table="{number}"]')
        await expect(row).to_have_attribute("data-status", "reported")
        await row.get_by_role("button", name=f"Approve: Table {number}").click()
        await expect(row).to_have_attribute("data-status", "approved")
        after = (await stack.client.get(f"/tournaments/{tid}")).json()
        approved = after["rounds"][round_ - 1]["tables"][number - 1]
        assert approved["confirmed"] == [table["players"][1]]
        assert [r["player_id"] for r in approved["approved"]] == table["players"]
        assert [r["score"] for r in approved["approved"]] == [40, 37, 34, 31]


@pytest.mark.parametrize("size", ["phone", "tv"])
async def test_a_club_night_from_the_browser(stack: Stack, browser: Browser, size: str) -> None:
    page = await open_page(browser, f"{stack.url}/?lang=en", size)
    await page.get_by_role("link", name="Tournaments").click()
    await expect(page.locator("#tn-list-upcoming li")).to_have_text("No tournaments yet.")
    await page.get_by_role("link", name="New tournament").click()
    await expect(page.get_by_role("button", name="Create tournament")).to_be_visible()
    await fill_the_form(page)
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"tournament-new-{size}"), full_page=True)
    await page.get_by_role("button", name="Create tournament").click()
    await page.wait_for_url("**/desk")
    tid = page.url.split("/tournaments/")[1].split("/")[0]
    assert tid.startswith("friday-cup-")
    assert len(tid) == len("friday-cup-") + 6
    await expect(page.locator("#tn-players tbody tr")).to_have_count(8)
    await expect(page.locator("#tn-token-once")).to_be_visible()
    token = await page.locator("#tn-token-shown").inner_text()
    assert len(token) >= 32
    assert await page.get_by_role("textbox", name="Organiser token").input_value() == token
    await expect(page.locator("#tn-token-once")).to_contain_text("shown once")
    # names are text, never markup
    await expect(page.locator('#tn-players tr[data-player="p08"] td').nth(1)).to_have_text(
        "<b>Hana</b>"
    )
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"tournament-desk-new-{size}"), full_page=True)
    state = (await stack.client.get(f"/tournaments/{tid}")).json()
    assert state["settings"]["rounds"] == 2
    assert [p["name"] for p in state["players"]] == NAMES
    assert state["settings"]["remainder"] == "threes"
    assert state["settings"]["auto_approve_after_s"] is None
    await play_round(stack, browser, page, tid, 1)
    await play_round(stack, browser, page, tid, 2)
    await expect(page.locator("#tn-end")).to_be_visible()
    done = (await stack.client.get(f"/tournaments/{tid}")).json()
    assert done["status"] == "finished"
    standings = (await stack.client.get(f"/tournaments/{tid}/standings")).json()
    first = standings["players"][0]
    assert done["winner"]["player_id"] == first["player_id"]
    await expect(page.locator("#tn-winner")).to_have_text(first["name"])
    await page.screenshot(path=shot_path(f"tournament-desk-finished-{size}"), full_page=True)
    tv = await open_page(browser, f"{stack.url}/tv/tournaments/{tid}?lang=en", size)
    await expect(tv.locator("#ttv-podium")).to_be_visible()
    await expect(tv.locator("#ttv-winner")).to_have_text(first["name"])
    listed = (await stack.client.get("/tournaments", headers={"Accept": "application/json"})).json()
    assert [t["tournament_id"] for t in listed["finished"]] == [tid]
    await page.goto(f"{stack.url}/tournaments?lang=en")
    item = page.locator(f'#tn-list-finished li[data-tournament="{tid}"]')
    await expect(item).to_contain_text(f"Winner: {first['name']}")
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"tournaments-list-{size}"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]
    assert tv.errors == []  # type: ignore[attr-defined]
