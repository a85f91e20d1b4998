"""The desk of a club night (docs/tournaments-in-the-browser.md): players checked in from the
desk (9 registered, 8 checked in: round 1 seats those 8), the round's clock started from the
desk and counted down on the desk and on the room screen (live: a restart reaches the
screen over SSE), the round's pairings and result slips printed with each table's report QR
code, whose link opens that table's report form on a phone; the room screen opened from the
desk's tab carries the same QR codes. EN at 390 and 1920 px (no sideways scroll, axe clean,
screenshots), and the desk's new words in RU."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import fits_and_is_accessible, open_page, shot_path
from tests.web.conftest import Stack
from tests.web.tourney import AUTH, TOKEN, create

pytestmark = [pytest.mark.browser, pytest.mark.redis]


@pytest.mark.parametrize("size", ["phone", "tv"])
async def test_check_in_clock_and_slips_from_the_desk(
    stack: Stack, browser: Browser, size: str
) -> None:
    await create(stack.client, "club", 9, rounds=2)
    page = await open_page(browser, f"{stack.url}/tournaments/club/desk?lang=en", size)
    await page.get_by_role("textbox", name="Organiser token").fill(TOKEN)
    await page.locator("#tn-token-form button").click()
    await expect(page.locator("#tn-auto")).to_have_text(
        "Auto-approval is off: approve each reported result here."
    )
    for n in range(1, 9):  # Player 9 never arrives
        await page.get_by_role("button", name=f"Check in: Player {n}", exact=True).click()
        await expect(page.locator("#tn-msg")).to_have_text(f"Checked in: Player {n}")
    row = page.locator('#tn-players tr[data-player="p01"]')
    await expect(row).to_contain_text("Checked in")
    await expect(page.get_by_role("button", name="Check in: Player 9")).to_be_visible()
    await page.get_by_role("button", name="Seat the next round").click()
    await expect(page.locator("#tn-msg")).to_have_text("Seated round 1: 2 tables")
    state = (await stack.client.get("/tournaments/club")).json()
    seated = sorted(p for t in state["rounds"][0]["tables"] for p in t["players"])
    assert seated == [f"p0{i}" for i in range(1, 9)]
    # the clock
    await page.get_by_label("Round length (minutes)").fill("25")
    await page.get_by_role("button", name="Start the round timer").click()
    await expect(page.locator("#tn-msg")).to_have_text("Round timer started: 25 min")
    await expect(page.locator("#tn-clock")).to_contain_text("Time left 2")
    # the room screen, opened in the desk's tab: the clock and each table's QR code
    await page.goto(f"{stack.url}/tv/tournaments/club?lang=en")
    await expect(page.locator("#ttv-clock")).to_contain_text("Time left 2")
    await expect(page.locator(".ttv-table-qr")).to_have_count(2)
    await expect(page.locator(".ttv-table-qr").first).to_have_attribute(
        "alt", "Report form of table 1"
    )
    restart = await stack.client.post(
        "/tournaments/club/rounds/1/timer", json={"minutes": 5}, headers=AUTH
    )
    assert restart.status_code == 200, restart.text
    await expect(page.locator("#ttv-clock")).to_contain_text("Time left 4:")  # live
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"tournament-tv-clock-{size}"), full_page=True)
    # print: the slips, each with its table's report QR code
    await page.goto(f"{stack.url}/tournaments/club/desk?lang=en")
    await page.evaluate("window.print = () => { window.printed = true; }")
    await page.get_by_role("button", name="Print pairings and result slips").click()
    slips = page.locator("#tn-slips .tn-slip")
    await expect(slips).to_have_count(2)
    assert await page.evaluate("window.printed") is True
    links = []
    for number in (1, 2):
        img = page.locator(f'#tn-slips .tn-slip[data-table="{number}"] img')
        await expect(img).to_have_attribute("alt", f"Report form of table {number}")
        svg = unquote(await img.get_attribute("src") or "")
        title = svg.split("<title>", 1)[1].split("</title>", 1)[0].replace("&amp;", "&")
        assert title.startswith(f"{stack.url}/tournaments/club/tables/{number}/report#round=1&key=")
        links.append(title)
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"tournament-desk-club-{size}"), full_page=True)
    await page.emulate_media(media="print")
    await expect(page.locator("#tn-slips")).to_be_visible()
    await expect(page.locator("#tn-seat")).to_be_hidden()
    await page.screenshot(path=shot_path(f"tournament-slips-print-{size}"), full_page=True)
    # the slip's link opens that table's report form
    phone = await open_page(browser, links[0], "phone")
    table = state["rounds"][0]["tables"][0]
    await expect(phone.locator("#tn-report-rows tbody tr")).to_have_count(len(table["players"]))
    assert page.errors == []  # type: ignore[attr-defined]
    assert phone.errors == []  # type: ignore[attr-defined]
    await phone.context.close()


async def test_the_desks_new_words_in_russian(stack: Stack, browser: Browser) -> None:
    new = {"tournament_id": "club", "title": "Клуб", "game": "penumbra", "rounds": 1}
    answer = await stack.client.post(
        "/tournaments", json={**new, "auto_approve_after_s": 300}, headers=AUTH
    )
    assert answer.status_code == 201, answer.text
    for n in range(1, 9):
        body = {"player_id": f"p0{n}", "name": f"Player {n}"}
        await stack.client.post("/tournaments/club/players", json=body, headers=AUTH)
    page = await open_page(browser, f"{stack.url}/tournaments/club/desk?lang=ru", "laptop")
    await expect(page.locator("#tn-auto")).to_have_text(
        "Внесённые результаты утверждаются автоматически через 5 мин после внесения, "
        "если их не оспорили."
    )
    await expect(page.get_by_role("button", name="Отметить: Player 1")).to_be_visible()
    await expect(page.locator("#tn-players-title + .hint")).to_contain_text("отмеченные")
    await stack.client.post("/tournaments/club/rounds", headers=AUTH)
    await expect(page.get_by_role("button", name="Запустить таймер тура")).to_be_visible()
    await expect(page.get_by_role("button", name="Печать рассадки и бланков")).to_be_visible()
    await fits_and_is_accessible(page)
    assert page.errors == []  # type: ignore[attr-defined]
