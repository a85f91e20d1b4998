"""The ledger panel in words: its heading names the event it stands after ("after event N",
"после события N"), and Coins and Shards rows carry their own category names from the game's
catalogue (`resource_categories`), never the Fame category of the same key ("Starting Fame" on
a Coins row)."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Browser, expect

from services.doors.web.routes import STATIC
from tests.web.browser import open_page, total_of
from tests.web.builders import example
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

TRICKERION = "trickerion-4p-dark-alley-academy"
GAME = "tr-4p-dark-alley-academy"
CATALOG = json.loads((STATIC / "i18n" / "trickerion.json").read_text(encoding="utf-8"))
HEADING = {"en": "Greta, after event {seq}", "ru": "Greta, после события {seq}"}


async def test_every_coins_and_shards_category_of_the_example_has_its_own_name(
    stack: Stack,
) -> None:
    events = list(example(TRICKERION))
    assert (await stack.post(events)).status_code == 201
    own = CATALOG["resource_categories"]
    for player in ("greta", "bruno", "dmitri", "alma"):
        ledger = (await stack.client.get(f"/games/{GAME}/players/{player}/ledger")).json()
        for entry in ledger["entries"]:
            if entry["resource"] in ("coins", "shards"):
                names = own[entry["resource"]].get(entry["category"])
                assert names, entry
                assert names["en"], entry
                assert names["ru"], entry


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_ledger_heading_and_coins_rows_in_words(
    stack: Stack, browser: Browser, lang: str
) -> None:
    events = list(example(TRICKERION))
    assert (await stack.post(events)).status_code == 201
    await stack.wait_projected(GAME, len(events))
    page = await open_page(browser, f"{stack.url}/games/{GAME}?lang={lang}", "laptop")
    await total_of(page, "greta").click()
    heading = page.locator("#ledger-player")
    await expect(heading).to_have_text(HEADING[lang].format(seq=len(events)))
    assert "at_seq" not in await page.locator("#ledger-title").inner_text()
    own = CATALOG["resource_categories"]
    for resource in ("coins", "shards"):
        rows = page.locator(f'#ledger tbody tr[data-resource="{resource}"]')
        count = await rows.count()
        assert count > 0, resource
        cells = await rows.locator("td:nth-child(4)").all_inner_texts()
        words = {names[lang] for names in own[resource].values()}
        assert set(cells) <= words, (resource, set(cells) - words)
    starting = page.locator('#ledger tbody tr[data-resource="coins"] td:nth-child(4)').first
    await expect(starting).to_have_text(own["coins"]["start"][lang])
    fame_rows = await page.locator(
        '#ledger tbody tr[data-resource="fame"] td:nth-child(4)'
    ).all_inner_texts()
    assert "Starting Fame" in fame_rows or "Начальная слава" in fame_rows
    assert page.errors == []  # type: ignore[attr-defined]
