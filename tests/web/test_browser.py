"""The scoreboard in a real headless Chromium against the whole stack running in the test
(uvicorn on a free port, the project's Redis, ingest with write tokens, the projector, live
push), at phone, laptop and TV sizes: no horizontal overflow, the standings as categories x
players (cards on a phone), the live update, replay and dispute flows, in English and
Russian, and axe-core finding no serious accessibility violation."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from tests.web.browser import (
    GAME,
    api_totals,
    axe_serious,
    expect_totals,
    fits_and_is_accessible,
    no_horizontal_overflow,
    open_page,
    seeded,
    shot_path,
    total_of,
)
from tests.web.builders import example, referee
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

WORDS = {
    "en": {
        "live": "live", "replay": "replay", "final": "final", "history": "History",
        "correction": "corrects Oren by +7", "trial": "Oren completes Trial",
        "voided_by": "voided by #62", "cards_total": "VP",
    },
    "ru": {
        "live": "идёт", "replay": "повтор", "final": "завершена", "history": "История",
        "correction": "поправка +7 игроку Oren", "trial": "Oren проходит Испытание",
        "voided_by": "отменено событием №62", "cards_total": "ПО",
    },
}  # fmt: skip


@pytest.mark.parametrize("size", ["small-phone", "phone", "laptop", "tv", "4k"])
async def test_final_scoreboard_fits_every_size_and_passes_axe(
    stack: Stack, browser: Browser, size: str
) -> None:
    await seeded(stack, 91)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en", size)
    api = (await stack.client.get(f"/games/{GAME}/standings")).json()
    await expect_totals(page, api_totals(api))
    await expect(page.locator("#status-badge")).to_have_text("final")
    await expect(page.locator("#result")).to_contain_text("Winner: Mira")
    await expect(page.locator("#timeline tbody tr")).to_have_count(91)
    zero = [
        c["key"]
        for c in api["players"][0]["breakdown"]
        if not any(
            next(b for b in p["breakdown"] if b["key"] == c["key"])["points"]
            for p in api["players"]
        )
    ]
    assert zero, "the example has an all-zero category (correction)"
    if size in ("small-phone", "phone"):
        await expect(page.locator("#standings")).to_be_hidden()
        card = page.locator('#cards [data-player="mira"]')
        await expect(card.locator(".rank")).to_have_text("1")
        await expect(card.locator("dl")).to_be_hidden()  # the breakdown is folded
        await card.locator("summary").click()
        await expect(card.locator("dl")).to_contain_text("Trials")
    else:
        await expect(page.locator('#standings tbody tr[data-cat="trials"] th')).to_have_text(
            "Trials"
        )
        head = page.locator("#standings thead th.player")
        await expect(head).to_have_count(3)
        await expect(head.first).to_have_attribute("data-player", api["winner"])
        for key in zero:  # hidden until asked
            await expect(page.locator(f'#standings tr[data-cat="{key}"]')).to_have_count(0)
        await page.locator("#zero-toggle").click()
        for key in zero:
            await expect(page.locator(f'#standings tr[data-cat="{key}"]')).to_have_count(1)
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"scoreboard-{size}"), full_page=size != "4k")
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("size", "lang"), [("phone", "en"), ("laptop", "en"), ("tv", "en"), ("phone", "ru")]
)
async def test_live_update_replay_and_dispute(
    stack: Stack, browser: Browser, size: str, lang: str
) -> None:
    words = WORDS[lang]
    await seeded(stack, 60)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang={lang}", size)
    await expect(page.locator("#status-badge")).to_have_text(words["live"])
    await expect(page.locator("#history-title")).to_have_text(words["history"])
    before = api_totals((await stack.client.get(f"/games/{GAME}/standings")).json())
    await expect_totals(page, before)

    # Live update: a correction arrives over SSE (a compact frame); no reload.
    fix = referee(example()[:60], {"player_id": "oren", "amount": 7})
    assert (await stack.post([fix])).status_code == 201
    await expect(total_of(page, "oren")).to_have_text(str(before["oren"] + 7))
    await expect(page.locator('[data-player="oren"] .corrected-mark:visible')).to_have_count(1)
    await expect(page.locator('#timeline tr[data-seq="61"] .summary')).to_contain_text(
        words["correction"]
    )
    summaries = await page.locator("#timeline .summary").all_inner_texts()
    assert len(summaries) == 61
    assert not [s for s in summaries if "{" in s or s.startswith(("penumbra.", "game."))]

    # Replay: a step button, then the keyboard; every panel at the chosen seq.
    await page.locator("#step-back").click()
    await expect(page.locator("#status-badge")).to_have_text(words["replay"])
    await expect(page.locator("#slider-value")).to_have_text("#60")
    await expect_totals(page, before)
    await page.locator("#history-title").click()  # focus outside any input
    for _ in range(3):
        await page.keyboard.press("ArrowLeft")
    await expect(page.locator("#slider-value")).to_have_text("#57")
    at57 = (await stack.client.get(f"/games/{GAME}/standings", params={"at_seq": 57})).json()
    await expect_totals(page, api_totals(at57))
    await expect(page.locator("#board")).to_be_in_viewport()  # the standings stay in view
    cursor = await page.evaluate(
        "() => Chart.getChart(document.getElementById('chart')).$cursorIndex"
    )
    assert cursor == 56  # the 57th point of the per-event axis
    await expect(page.locator('#timeline tr[data-seq="58"]')).to_have_class(re.compile("after"))
    await total_of(page, "tess").click()
    ledger = (
        await stack.client.get(f"/games/{GAME}/replay/ledger/tess", params={"at_seq": 57})
    ).json()
    await expect(page.locator("#ledger tbody tr")).to_have_count(len(ledger["entries"]))
    assert {
        int(s)
        for s in await page.locator("#ledger tbody tr").evaluate_all(
            "rows => rows.map(r => r.dataset.seq)"
        )
    } <= set(range(1, 58))
    await page.locator("#history-title").click()
    await page.keyboard.press("End")
    await expect(page.locator("#status-badge")).to_have_text(words["live"])

    # Dispute: the comparison, a refused wrong token, then the void.
    target = page.locator('#timeline tr[data-seq="57"]')
    await expect(target.locator(".summary")).to_contain_text(words["trial"])
    await target.locator("button.dispute").click()
    panel = page.locator("#dispute-panel")
    await expect(panel).to_be_visible()
    event_id = await target.get_attribute("data-event-id")
    compare = (await stack.client.get(f"/games/{GAME}/dispute/{event_id}")).json()
    without = api_totals(compare["without"])
    await expect(
        panel.locator('#dispute-compare tr[data-player="oren"] td.without')
    ).to_contain_text(str(without["oren"]))
    form = page.locator("#dispute-form")
    await form.locator('input[name="reason"]').fill("trial was not finished")
    await form.locator('input[name="referee"]').fill("ref-anna")
    await form.locator('input[name="token"]').fill("wrong-token")
    await page.locator("#void-button").click()
    await page.locator("#confirm-button").click()
    await expect(page.locator("#dispute-message")).to_contain_text("403")
    assert await stack.store.version(GAME) == 61  # refused: nothing written
    await form.locator('input[name="token"]').fill(stack.tokens[GAME])
    await page.locator("#void-button").click()
    await page.locator("#confirm-button").click()
    await expect(page.locator("#dispute-message")).to_contain_text("62")
    await expect_totals(page, without)
    await expect(page.locator('#timeline tr[data-seq="57"] .badge.voided')).to_have_text(
        words["voided_by"]
    )
    await no_horizontal_overflow(page)
    await page.screenshot(path=shot_path(f"flow-{size}-{lang}"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_russian_page_is_russian_throughout(stack: Stack, browser: Browser) -> None:
    await seeded(stack, 91)
    page = await open_page(browser, f"{stack.url}/games/{GAME}", "laptop", locale="ru-RU")
    await expect(page.locator('#standings tr[data-cat="trials"] th')).to_have_text("Испытания")
    await expect(page.locator("#status-badge")).to_have_text("завершена")
    await expect(page.locator("#timeline tbody tr")).to_have_count(91)
    text = await page.locator("main").inner_text()
    for english in ("Total", "History", "Export", "Dispute", "Winner", "Round", "research"):
        assert english not in text, english
    assert await axe_serious(page) == []
    await page.screenshot(path=shot_path("scoreboard-ru"), full_page=True)
    english = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en", "laptop", "ru-RU")
    await expect(english.locator('#standings tr[data-cat="trials"] th')).to_have_text("Trials")


@pytest.mark.parametrize("size", ["phone", "laptop"])
async def test_games_list_shows_players_leader_turn_and_pages(
    stack: Stack, browser: Browser, size: str
) -> None:
    await seeded(stack, 30)
    page = await open_page(browser, f"{stack.url}/?lang=en", size)
    row = page.locator(f'#games tr[data-game="{GAME}"]')
    await expect(row).to_contain_text("Mira")
    board = (await stack.client.get("/board/games")).json()["games"][0]
    leader = next(p for p in board["players"] if p["player_id"] in board["leader"])
    await expect(row).to_contain_text(f"{leader['name']} — {leader['total']} VP")
    await expect(row).to_contain_text(f"Round {board['turn']}")
    await expect(row.locator(".status")).to_have_text("live")
    await expect(page.locator("#page-of")).to_have_text("Page 1 of 1")
    await fits_and_is_accessible(page)
    await page.screenshot(path=shot_path(f"games-list-{size}"), full_page=True)
    await row.locator("a").click()
    await expect(page).to_have_url(re.compile(f"/games/{GAME}"))


async def test_an_unknown_game_gets_a_not_found_page(stack: Stack, browser: Browser) -> None:
    response = await stack.client.get("/games/no-such-game")
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    page = await open_page(browser, f"{stack.url}/games/no-such-game?lang=ru", "phone")
    await expect(page.locator("h1")).to_have_text("Партия не найдена")
    await expect(page.locator("#live-status")).to_have_count(0)  # not "connected"
    assert await axe_serious(page) == []
