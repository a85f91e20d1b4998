"""The scoreboard in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright;
no browser is downloaded), against the whole stack running in the test: uvicorn on a free port,
the project's Redis, ingest with write tokens, the projector, live push.

Each page is also saved as a screenshot under docs/screenshots/.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from tests.web.builders import example, referee
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The README's screenshots are refreshed only on request (SCORELEDGER_SCREENSHOTS=docs), so a
# plain test run leaves the work tree clean; otherwise they go to a temporary folder.
SHOTS = (
    Path(__file__).parents[2] / "docs" / "screenshots"
    if os.environ.get("SCORELEDGER_SCREENSHOTS") == "docs"
    else Path(tempfile.gettempdir()) / "scoreledger-screenshots"
)
SHOTS.mkdir(parents=True, exist_ok=True)
GAME = "pen-demo-3p"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: apt-get install chromium (deploy/scripts/system-deps.sh)"
        )
    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


async def open_page(browser: Browser, url: str, locale: str = "en-US") -> Page:
    context = await browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(url)
    return page


async def seeded(stack: Stack, upto: int) -> None:
    """The example game's first `upto` events, posted through ingest (keeps the token)."""
    response = await stack.post(list(example()[:upto]))
    assert response.status_code == 201, response.text
    await stack.wait_projected(GAME, upto)


async def totals_on_page(page: Page, expected: dict[str, int] | None = None) -> dict[str, int]:
    """The totals the page shows; with `expected`, first wait until the page shows them (the
    page loads its standings after `goto` returns, and may start from an older projection)."""
    rows = page.locator("#standings tbody tr")
    await expect(rows.first).to_be_visible()
    for player, total in (expected or {}).items():
        await expect(page.locator(f'#standings tr[data-player="{player}"] td.total')).to_have_text(
            str(total)
        )
    out = {}
    for i in range(await rows.count()):
        row = rows.nth(i)
        out[await row.get_attribute("data-player")] = int(
            await row.locator("td.total").inner_text()
        )
    return out


def api_totals(body: dict) -> dict[str, int]:
    return {p["player_id"]: p["total"] for p in body["players"]}


async def test_games_list_and_scoreboard_show_the_standings(stack: Stack, browser: Browser) -> None:
    await seeded(stack, 91)
    index = await open_page(browser, f"{stack.url}/?lang=en")
    link = index.locator(f'#games tr[data-game="{GAME}"] a')
    await expect(link).to_have_text(GAME)
    await index.screenshot(path=SHOTS / "games-list.png", full_page=True)
    await link.click()
    await expect(index).to_have_url(re.compile(f"/games/{GAME}"))
    await expect(index.locator("#status-badge")).to_have_text("final")
    api = (await stack.client.get(f"/games/{GAME}/standings")).json()
    await expect(index.locator("#standings tbody tr")).to_have_count(3)
    assert await totals_on_page(index) == api_totals(api)
    first = index.locator("#standings tbody tr").first
    await expect(first.locator("td.rank")).to_have_text("1")
    await expect(first).to_have_attribute("data-player", api["winner"])
    await expect(index.locator("#result")).to_contain_text("Winner: Mira")
    await expect(index.locator('#standings th[data-cat="trials"]')).to_have_text("Trials")
    await index.screenshot(path=SHOTS / "scoreboard-final.png", full_page=True)
    assert index.errors == []  # type: ignore[attr-defined]


async def test_an_appended_event_shows_within_a_second_and_the_chart_has_a_line_per_player(
    stack: Stack, browser: Browser
) -> None:
    await seeded(stack, 40)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en")
    await expect(page.locator("#status-badge")).to_have_text("live")
    api = (await stack.client.get(f"/games/{GAME}/standings")).json()
    before = await totals_on_page(page, api_totals(api))
    datasets = await page.evaluate(
        "() => Chart.getChart(document.getElementById('chart')).data.datasets.map(d => d.label)"
    )
    assert sorted(datasets) == ["Mira", "Oren", "Tess"]

    fix = referee(example()[:40], {"player_id": "oren", "amount": 7})
    assert (await stack.post([fix])).status_code == 201
    oren = page.locator('#standings tr[data-player="oren"] td.total')
    await expect(oren).to_have_text(str(before["oren"] + 7), timeout=1000)  # no reload
    await expect(page.locator('#timeline tr[data-seq="41"]')).to_be_visible()
    points = await page.evaluate(
        "() => Chart.getChart(document.getElementById('chart'))"
        ".data.datasets.map(d => d.data.length)"
    )
    assert points == [41, 41, 41]
    await page.screenshot(path=SHOTS / "scoreboard-live.png", full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_the_slider_shows_the_same_numbers_as_the_api_at_that_seq(
    stack: Stack, browser: Browser
) -> None:
    await seeded(stack, 60)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en")
    await expect(page.locator("#slider")).to_have_attribute("max", "60")
    for seq in (17, 33):
        await page.locator("#slider").fill(str(seq))  # range input: sets the value, fires input
        await expect(page.locator("#replay-banner")).to_be_visible()
        await expect(page.locator("#replay-text")).to_contain_text(f"#{seq} of 60")
        api = (await stack.client.get(f"/games/{GAME}/standings", params={"at_seq": seq})).json()
        assert await totals_on_page(page, api_totals(api)) == api_totals(api)
        row = page.locator(f'#standings tr[data-player="{api["players"][0]["player_id"]}"]')
        for cat in api["players"][0]["breakdown"]:
            await expect(row.locator(f'td[data-cat="{cat["key"]}"]')).to_have_text(
                str(cat["points"])
            )
    await page.screenshot(path=SHOTS / "history-slider.png", full_page=True)
    await page.locator("#back-live").click()
    await expect(page.locator("#replay-banner")).to_be_hidden()
    live = (await stack.client.get(f"/games/{GAME}/standings")).json()
    assert await totals_on_page(page, api_totals(live)) == api_totals(live)


async def test_a_click_on_a_total_shows_the_ledger(stack: Stack, browser: Browser) -> None:
    await seeded(stack, 60)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en")
    await page.locator('#standings tr[data-player="tess"] td.total button').click()
    await expect(page.locator("#ledger-panel")).to_be_visible()
    ledger = (await stack.client.get(f"/games/{GAME}/players/tess/ledger")).json()
    await expect(page.locator("#ledger tbody tr")).to_have_count(len(ledger["entries"]))
    await expect(page.locator("#ledger-player")).to_have_text("Tess")
    await page.screenshot(path=SHOTS / "ledger.png", full_page=True)


async def test_a_void_from_the_dispute_view_changes_totals_and_stays_marked(
    stack: Stack, browser: Browser
) -> None:
    await seeded(stack, 60)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en")
    target = page.locator('#timeline tr[data-seq="57"]')  # penumbra.trial_completed: Oren +10
    await expect(target).to_contain_text("Oren +10")
    api = (await stack.client.get(f"/games/{GAME}/standings")).json()
    before = await totals_on_page(page, api_totals(api))
    await target.locator("button.dispute").click()
    panel = page.locator("#dispute-panel")
    await expect(panel).to_be_visible()
    event_id = await target.get_attribute("data-event-id")
    compare = (await stack.client.get(f"/games/{GAME}/dispute/{event_id}")).json()
    without = api_totals(compare["without"])  # the trial's experience symbols go too: not just -10
    oren = panel.locator('#dispute-compare tr[data-player="oren"]')
    await expect(oren.locator("td.with")).to_contain_text(str(before["oren"]))
    await expect(oren.locator("td.without")).to_contain_text(str(without["oren"]))
    assert without["oren"] < before["oren"] - 1
    form = page.locator("#dispute-form")
    await form.locator('input[name="reason"]').fill("trial was not finished")
    await form.locator('input[name="referee"]').fill("ref-anna")
    await form.locator('input[name="token"]').fill("wrong-token")
    await page.locator("#void-button").click()
    await expect(page.locator("#dispute-message")).to_contain_text("403")
    assert await stack.store.version(GAME) == 60  # refused: nothing written
    await form.locator('input[name="token"]').fill(stack.tokens[GAME])
    await page.locator("#void-button").click()
    await expect(page.locator("#dispute-message")).to_contain_text("#61")
    await expect(page.locator('#standings tr[data-player="oren"] td.total')).to_have_text(
        str(without["oren"])
    )
    assert await totals_on_page(page, without) == without
    voided = page.locator('#timeline tr[data-seq="57"]')
    await expect(voided).to_have_class(re.compile("voided"))
    await expect(voided.locator(".badge.voided")).to_have_text("voided by #61")
    await expect(page.locator('#timeline tr[data-seq="61"] .badge.void')).to_have_text("voids #57")
    log = (
        await stack.client.get(f"/games/{GAME}/events", params={"from_seq": 57, "limit": 5})
    ).json()
    assert log["events"][0]["voided_by_seq"] == 61  # the event itself stays in the log
    await page.screenshot(path=SHOTS / "dispute-void.png", full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_russian_page_shows_russian_category_names(stack: Stack, browser: Browser) -> None:
    await seeded(stack, 91)
    page = await open_page(browser, f"{stack.url}/games/{GAME}", locale="ru-RU")  # browser language
    await expect(page.locator('#standings th[data-cat="trials"]')).to_have_text("Испытания")
    await expect(page.locator('#standings th[data-cat="arcana"]')).to_have_text("Аркана")
    await expect(page.locator("#status-badge")).to_have_text("завершена")
    await page.screenshot(path=SHOTS / "scoreboard-ru.png", full_page=True)
    english = await open_page(
        browser, f"{stack.url}/games/{GAME}?lang=en", locale="ru-RU"
    )  # ?lang wins
    await expect(english.locator('#standings th[data-cat="trials"]')).to_have_text("Trials")


async def test_a_correction_from_the_dispute_view_is_linked_to_the_disputed_event(
    stack: Stack, browser: Browser
) -> None:
    await seeded(stack, 60)
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang=en")
    api = (await stack.client.get(f"/games/{GAME}/standings")).json()
    before = await totals_on_page(page, api_totals(api))
    await page.locator('#timeline tr[data-seq="55"] button.dispute').click()  # mark_placed: Mira +2
    form = page.locator("#dispute-form")
    await form.locator('input[name="reason"]').fill("Mark paid 3, not 2")
    await form.locator('input[name="referee"]').fill("ref-anna")
    await form.locator('input[name="token"]').fill(stack.tokens[GAME])
    await form.locator('select[name="player"]').select_option("mira")
    await form.locator('input[name="amount"]').fill("1")
    await form.locator('select[name="category"]').select_option("board")
    await page.locator("#correct-button").click()
    await expect(page.locator("#dispute-message")).to_contain_text("#61")
    mira = page.locator('#standings tr[data-player="mira"]')
    await expect(mira.locator("td.total")).to_have_text(str(before["mira"] + 1))
    await expect(page.locator('#timeline tr[data-seq="55"] .badge.correction')).to_have_text(
        "disputed; correction #61"
    )
    await expect(page.locator('#timeline tr[data-seq="61"] .badge.correction')).to_have_text(
        "correction"
    )
    stored = (await stack.store.read(GAME, 61, 61))[0]
    assert stored.type == "game.score_corrected"
    assert stored.payload.referee == "ref-anna"
    assert stored.causation_id == await page.locator('#timeline tr[data-seq="55"]').get_attribute(
        "data-event-id"
    )
