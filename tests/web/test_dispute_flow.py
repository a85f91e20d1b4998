"""The dispute flow a referee can trust, at 1366x768: the correction form starts on the
disputed event's player; nothing is written before a confirmation that names what the write
changes (Cancel writes nothing); the result appears beside the buttons, on screen without
scrolling, in a live region; and the end of a game is voided only through its own confirmed
"Reopen the game" choice, which sends `reopens_game: true`."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from tests.web.browser import GAME, api_totals, expect_totals, open_page, seeded
from tests.web.builders import example
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]


async def fill_referee(page: object, token: str) -> None:
    form = page.locator("#dispute-form")  # type: ignore[attr-defined]
    await form.locator('input[name="reason"]').fill("trial was not finished")
    await form.locator('input[name="referee"]').fill("ref-anna")
    await form.locator('input[name="token"]').fill(token)


async def trial_row(stack: Stack, browser: Browser) -> tuple[Page, Locator]:
    """The example game's first 60 events on a laptop-sized English page: the page, and the
    timeline row of event 57 (Oren completes a Trial), the event disputed."""
    await seeded(stack, 60)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en", "laptop")
    return page, page.locator('#timeline tr[data-seq="57"]')


async def test_correction_starts_on_the_disputed_player_and_waits_for_confirmation(
    stack: Stack, browser: Browser
) -> None:
    page, target = await trial_row(stack, browser)
    await expect(target.locator(".summary")).to_contain_text("Oren completes Trial")
    await target.locator("button.dispute").click()
    player = page.locator('#dispute-form select[name="player"]')
    await expect(player).to_have_value("oren")  # mira sits first: it was the default
    oren_before = api_totals((await stack.client.get(f"/games/{GAME}/standings")).json())["oren"]
    await fill_referee(page, stack.tokens[GAME])
    await page.locator('#dispute-form input[name="amount"]').fill("3")

    await page.locator("#correct-button").click()
    confirm = page.locator("#dispute-confirm")
    await expect(confirm).to_be_visible()
    await expect(page.locator("#dispute-confirm-text")).to_have_text(
        f"Record a correction for Oren: +3 VP in Correction, total {oren_before} → "
        f"{oren_before + 3}?"
    )
    assert await stack.store.version(GAME) == 60  # asked, not written
    await page.locator("#cancel-button").click()
    await expect(confirm).to_be_hidden()
    await expect(page.locator("#dispute-message")).to_have_text("Cancelled: nothing was recorded.")
    assert await stack.store.version(GAME) == 60

    await page.locator("#correct-button").click()
    await page.locator("#confirm-button").click()
    message = page.locator("#dispute-message")
    await expect(message).to_have_text("Recorded as event #61")
    await expect(message).to_have_attribute("aria-live", "polite")
    await expect(message).to_have_attribute("role", "status")
    await expect(message).to_be_in_viewport(ratio=1)  # on screen at 1366x768
    buttons = await page.locator("#dispute-actions").bounding_box()
    shown = await message.bounding_box()
    assert buttons is not None
    assert shown is not None
    assert 0 <= shown["y"] - (buttons["y"] + buttons["height"]) < 40  # right below the buttons
    stored = (await stack.client.get(f"/games/{GAME}/events?from_seq=61")).json()["events"][0]
    assert stored["type"] == "game.score_corrected"
    assert stored["event"]["payload"]["player_id"] == "oren"
    assert stored["event"]["payload"]["amount"] == 3
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_void_names_the_totals_it_changes_before_it_is_written(
    stack: Stack, browser: Browser
) -> None:
    page, target = await trial_row(stack, browser)
    await target.locator("button.dispute").click()
    event_id = await target.get_attribute("data-event-id")
    compare = (await stack.client.get(f"/games/{GAME}/dispute/{event_id}")).json()
    before, after = api_totals(compare["with"]), api_totals(compare["without"])
    changed = [pid for pid in before if before[pid] != after[pid]]
    assert changed
    await fill_referee(page, stack.tokens[GAME])
    await page.locator("#void-button").click()
    await expect(page.locator("#dispute-confirm-text")).to_contain_text("Void event #57 (Oren")
    names = {p["player_id"]: p["name"] for p in compare["with"]["players"]}
    changes = page.locator("#dispute-confirm-changes li")
    await expect(changes).to_have_count(1 + len(changed))
    for pid in changed:
        await expect(changes.filter(has_text=f"{names[pid]}: ")).to_have_text(
            f"{names[pid]}: {before[pid]} → {after[pid]} VP"
        )
    assert await stack.store.version(GAME) == 60
    await page.locator("#confirm-button").click()
    await expect(page.locator("#dispute-message")).to_have_text("Recorded as event #61")
    await expect(page.locator("#dispute-message")).to_be_in_viewport(ratio=1)
    await expect_totals(page, after)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_reopening_a_final_game_is_its_own_confirmed_choice(
    stack: Stack, browser: Browser, lang: str
) -> None:
    events = list(example())
    assert events[-1].type == "game.ended"
    await seeded(stack, len(events))
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang={lang}", "laptop")
    final = {"en": "final", "ru": "завершена"}[lang]
    live = {"en": "live", "ru": "идёт"}[lang]
    await expect(page.locator("#status-badge")).to_have_text(final)
    await page.locator(f'#timeline tr[data-seq="{len(events)}"] button.dispute').click()
    await expect(page.locator("#reopen-button")).to_be_visible()
    await expect(page.locator("#void-button")).to_be_hidden()
    await expect(page.locator("#reopen-hint")).to_be_visible()
    await expect(page.locator("#dispute-error")).to_be_hidden()
    await fill_referee(page, stack.tokens[GAME])
    await page.locator("#reopen-button").click()
    reopen = {"en": "reopen it?", "ru": "возобновить её?"}[lang]
    await expect(page.locator("#dispute-confirm-text")).to_contain_text(reopen)
    assert await stack.store.version(GAME) == len(events)
    await page.locator("#confirm-button").click()
    saved = {"en": "Recorded as event #", "ru": "Записано как событие №"}[lang]
    await expect(page.locator("#dispute-message")).to_have_text(f"{saved}{len(events) + 1}")
    stored = (await stack.client.get(f"/games/{GAME}/events?from_seq={len(events) + 1}")).json()
    void = stored["events"][0]
    assert void["type"] == "game.event_voided"
    assert void["event"]["payload"]["reopens_game"] is True
    assert void["event"]["payload"]["voided_event_id"] == str(events[-1].event_id)
    await expect(page.locator("#status-badge")).to_have_text(live)
    assert page.errors == []  # type: ignore[attr-defined]
