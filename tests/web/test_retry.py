"""The pages wait out a busy server: a replay read answered 503 or 429 with `Retry-After` (the
replay queue full, a client at its limit: services/runtime/fairqueue.py) is asked
again after that many seconds, and the page shows the answer instead of failing. Checked in
headless Chromium on a final game (no live frame re-asks anything), the answers replaced once by
Playwright's request routing."""

from __future__ import annotations

import time

import pytest
from playwright.async_api import Browser, Route, expect

from tests.web.browser import GAME, SIZES, api_totals, expect_totals, seeded, total_of
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]


def once_busy(status: int, rule: str, asked: list[float]) -> object:
    """A route handler answering the first request `status` with `Retry-After: 1`, then the
    server's answer; `asked` gets each request's time."""

    async def handle(route: Route) -> None:
        asked.append(time.monotonic())
        if len(asked) > 1:
            await route.continue_()
            return
        await route.fulfill(
            status=status,
            headers={"Retry-After": "1", "Content-Type": "application/problem+json"},
            body=f'{{"rule": "{rule}", "message": "busy", "field": null}}',
        )

    return handle


async def test_replay_and_ledger_retry_a_busy_answer_after_retry_after(
    stack: Stack, browser: Browser
) -> None:
    await seeded(stack, 91)
    context = await browser.new_context(viewport=SIZES["laptop"])  # type: ignore[arg-type]
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{stack.url}/games/{GAME}?lang=en")
    await expect(page.locator("#timeline tbody tr")).to_have_count(91)

    ledgers: list[float] = []
    await page.route("**/replay/ledger/**", once_busy(429, "replay.client_limit", ledgers))  # type: ignore[arg-type]
    await total_of(page, "tess").click()
    ledger = (
        await stack.client.get(f"/games/{GAME}/replay/ledger/tess", params={"at_seq": 91})
    ).json()
    assert len(ledger["entries"]) > 5
    await expect(page.locator("#ledger tbody tr")).to_have_count(len(ledger["entries"]))
    assert len(ledgers) == 2, ledgers
    assert ledgers[1] - ledgers[0] >= 0.9, ledgers

    replays: list[float] = []
    await page.route("**/standings?at_seq=*", once_busy(503, "replay.queue_full", replays))  # type: ignore[arg-type]
    await page.locator("#history-title").click()  # focus outside any input
    await page.keyboard.press("Home")  # the replay at seq 1
    at1 = (await stack.client.get(f"/games/{GAME}/standings", params={"at_seq": 1})).json()
    await expect_totals(page, api_totals(at1))
    assert len(replays) == 2, replays  # the busy answer, then one retry ...
    assert replays[1] - replays[0] >= 0.9, replays  # ... after Retry-After: 1
    assert errors == []
    await context.close()
